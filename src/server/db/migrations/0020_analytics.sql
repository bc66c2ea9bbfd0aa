-- Project analytics (issue 36 §1): per member and UTC day the counts GET /projects/{id}/analytics
-- adds up, and per UTC day how many images entered or left each stage. The answer reads a few
-- hundred rollup rows instead of scanning the change log (2M rows took seconds). The rules are in
-- docs/analytics.md.
--
-- Kept by statement triggers, in the transaction of the write, whatever path made it:
--   annotation_changes INSERT -> shapes created / edited / deleted per class, active time
--   image_events INSERT       -> images submitted / accepted / rejected, issues opened / resolved
--   images INSERT/UPDATE/DELETE -> analytics_stage_days (stage moves of images not archived)
-- Rows are upserted sorted by key (the lock order of 0015) so two saves wait instead of deadlocking.
-- No foreign key to projects (the reason is in 0002_datasets_stats_fk.sql); a deleted project's
-- rows go with it by the trigger on projects at the end.

-- class_name '' holds the counts that have no class (images, issues, active time) and the shapes
-- saved without a class name.
CREATE TABLE analytics_member_days (
  project_id uuid NOT NULL,
  day date NOT NULL,
  user_id uuid NOT NULL,
  class_name text NOT NULL,
  shapes_created integer NOT NULL DEFAULT 0,
  shapes_edited integer NOT NULL DEFAULT 0,
  shapes_deleted integer NOT NULL DEFAULT 0,
  images_submitted integer NOT NULL DEFAULT 0,
  images_accepted integer NOT NULL DEFAULT 0,
  images_rejected integer NOT NULL DEFAULT 0,
  issues_opened integer NOT NULL DEFAULT 0,
  issues_resolved integer NOT NULL DEFAULT 0,
  active_ms bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, day, user_id, class_name)
);

-- Each member's last save in a project: the next save's gap is measured from it.
CREATE TABLE analytics_member_clock (
  project_id uuid NOT NULL,
  user_id uuid NOT NULL,
  last_save_at timestamptz,
  PRIMARY KEY (project_id, user_id)
);

-- Images (not archived) that entered (+) or left (-) a stage that UTC day. A day's stage counts
-- are today's counts minus the deltas of the days after it.
CREATE TABLE analytics_stage_days (
  project_id uuid NOT NULL,
  day date NOT NULL,
  status text NOT NULL,
  delta bigint NOT NULL,
  PRIMARY KEY (project_id, day, status)
);

CREATE FUNCTION analytics_changes_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Shapes: an upsert whose id is in `before` was edited, else created; a removed id was deleted
  -- (its class read from `before`).
  INSERT INTO analytics_member_days AS s (project_id, day, user_id, class_name, shapes_created, shapes_edited, shapes_deleted)
  SELECT project_id, day, user_id, class_name, sum(c), sum(e), sum(d) FROM (
    SELECT i.project_id, (n.created_at AT TIME ZONE 'UTC')::date AS day, n.user_id, coalesce(u->>'name', '') AS class_name,
           CASE WHEN coalesce((u->>'id') = ANY(b.ids), false) THEN 0 ELSE 1 END AS c,
           CASE WHEN coalesce((u->>'id') = ANY(b.ids), false) THEN 1 ELSE 0 END AS e,
           0 AS d
    FROM new_rows n JOIN images i ON i.id = n.image_id
    CROSS JOIN LATERAL (SELECT array_agg(x->>'id') AS ids FROM json_array_elements(n.before) x WHERE n.changed > 0) b
    CROSS JOIN LATERAL json_array_elements(n.upserts) u
    WHERE n.user_id IS NOT NULL AND n.added + n.changed > 0
    UNION ALL
    SELECT i.project_id, (n.created_at AT TIME ZONE 'UTC')::date, n.user_id, coalesce(x->>'name', ''), 0, 0, 1
    FROM new_rows n JOIN images i ON i.id = n.image_id
    CROSS JOIN LATERAL json_array_elements(n.before) x
    WHERE n.user_id IS NOT NULL AND n.removed > 0 AND (x->>'id') IN (SELECT json_array_elements_text(n.removed_ids))
  ) shapes GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (project_id, day, user_id, class_name) DO UPDATE SET
    shapes_created = s.shapes_created + excluded.shapes_created,
    shapes_edited = s.shapes_edited + excluded.shapes_edited,
    shapes_deleted = s.shapes_deleted + excluded.shapes_deleted;

  -- Active time: each save adds the gap since the member's previous save in the project when it is
  -- at most 5 minutes (longer gaps are idle). The clock rows are locked first, so two saves of one
  -- member wait for each other and each sees the other's time.
  INSERT INTO analytics_member_clock (project_id, user_id, last_save_at)
  SELECT DISTINCT i.project_id, n.user_id, NULL::timestamptz FROM new_rows n JOIN images i ON i.id = n.image_id WHERE n.user_id IS NOT NULL ORDER BY 1, 2
  ON CONFLICT (project_id, user_id) DO NOTHING;
  PERFORM 1 FROM analytics_member_clock c
  WHERE (c.project_id, c.user_id) IN (SELECT i.project_id, n.user_id FROM new_rows n JOIN images i ON i.id = n.image_id WHERE n.user_id IS NOT NULL)
  ORDER BY c.project_id, c.user_id FOR UPDATE;
  INSERT INTO analytics_member_days AS s (project_id, day, user_id, class_name, active_ms)
  SELECT project_id, (at AT TIME ZONE 'UTC')::date, user_id, '', sum(gap_ms)::bigint FROM (
    SELECT project_id, user_id, at, is_new,
           extract(epoch FROM at - lag(at) OVER (PARTITION BY project_id, user_id ORDER BY at, is_new)) * 1000 AS gap_ms
    FROM (
      SELECT c.project_id, c.user_id, c.last_save_at AS at, false AS is_new FROM analytics_member_clock c
      WHERE c.last_save_at IS NOT NULL
        AND (c.project_id, c.user_id) IN (SELECT i.project_id, n.user_id FROM new_rows n JOIN images i ON i.id = n.image_id WHERE n.user_id IS NOT NULL)
      UNION ALL
      SELECT i.project_id, n.user_id, n.created_at, true FROM new_rows n JOIN images i ON i.id = n.image_id WHERE n.user_id IS NOT NULL
    ) saves
  ) gaps WHERE is_new AND gap_ms > 0 AND gap_ms <= 300000
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (project_id, day, user_id, class_name) DO UPDATE SET active_ms = s.active_ms + excluded.active_ms;
  UPDATE analytics_member_clock c SET last_save_at = GREATEST(c.last_save_at, m.at)
  FROM (SELECT i.project_id, n.user_id, max(n.created_at) AS at FROM new_rows n JOIN images i ON i.id = n.image_id WHERE n.user_id IS NOT NULL GROUP BY 1, 2) m
  WHERE c.project_id = m.project_id AND c.user_id = m.user_id;
  RETURN NULL;
END;
$$;

CREATE TRIGGER annotation_changes_analytics AFTER INSERT ON annotation_changes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_changes_apply();

-- The member an event counts for: a review outcome (review -> complete: accepted; review ->
-- annotating or new: rejected) counts for whoever moved the image into review last; the rest for
-- whoever made the event. Opened counts a new issue (a reopened one is not counted again).
CREATE FUNCTION analytics_events_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_member_days AS s (project_id, day, user_id, class_name, images_submitted, images_accepted, images_rejected, issues_opened, issues_resolved)
  SELECT project_id, day, who, '', sum(sub), sum(acc), sum(rej), sum(op), sum(res) FROM (
    SELECT i.project_id, (n.created_at AT TIME ZONE 'UTC')::date AS day,
           CASE WHEN n.type = 'status' AND n.from_value = 'review'
             THEN (SELECT e.user_id FROM image_events e WHERE e.image_id = n.image_id AND e.type = 'status' AND e.to_value = 'review' AND e.id < n.id ORDER BY e.id DESC LIMIT 1)
             ELSE n.user_id END AS who,
           (n.type = 'status' AND n.to_value = 'review')::int AS sub,
           (n.type = 'status' AND n.from_value = 'review' AND n.to_value = 'complete')::int AS acc,
           (n.type = 'status' AND n.from_value = 'review' AND n.to_value IN ('annotating', 'new'))::int AS rej,
           (n.type = 'issue' AND n.to_value = 'open' AND n.from_value IS NULL)::int AS op,
           (n.type = 'issue' AND n.to_value = 'resolved')::int AS res
    FROM new_rows n JOIN images i ON i.id = n.image_id
    WHERE (n.type = 'status' AND (n.to_value = 'review' OR n.from_value = 'review'))
       OR (n.type = 'issue' AND (n.to_value = 'resolved' OR (n.to_value = 'open' AND n.from_value IS NULL)))
  ) ev WHERE who IS NOT NULL AND sub + acc + rej + op + res > 0
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (project_id, day, user_id, class_name) DO UPDATE SET
    images_submitted = s.images_submitted + excluded.images_submitted,
    images_accepted = s.images_accepted + excluded.images_accepted,
    images_rejected = s.images_rejected + excluded.images_rejected,
    issues_opened = s.issues_opened + excluded.issues_opened,
    issues_resolved = s.issues_resolved + excluded.issues_resolved;
  RETURN NULL;
END;
$$;

CREATE TRIGGER image_events_analytics AFTER INSERT ON image_events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_events_apply();

-- Stage moves: +1 per new row's stage, -1 per old row's, grouped; what cancels (every save's
-- update of annotation_count) drops out. Archived images are outside the counts.
CREATE FUNCTION analytics_stage_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO analytics_stage_days AS s (project_id, day, status, delta)
    SELECT project_id, (now() AT TIME ZONE 'UTC')::date, status, count(*) FROM new_rows WHERE NOT is_archived GROUP BY 1, 3 ORDER BY 1, 3
    ON CONFLICT (project_id, day, status) DO UPDATE SET delta = s.delta + excluded.delta;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO analytics_stage_days AS s (project_id, day, status, delta)
    SELECT project_id, (now() AT TIME ZONE 'UTC')::date, status, -count(*) FROM old_rows WHERE NOT is_archived GROUP BY 1, 3 ORDER BY 1, 3
    ON CONFLICT (project_id, day, status) DO UPDATE SET delta = s.delta + excluded.delta;
  ELSE
    INSERT INTO analytics_stage_days AS s (project_id, day, status, delta)
    SELECT project_id, (now() AT TIME ZONE 'UTC')::date, status, sum(d) FROM (
      SELECT project_id, status, 1 AS d FROM new_rows WHERE NOT is_archived
      UNION ALL
      SELECT project_id, status, -1 AS d FROM old_rows WHERE NOT is_archived
    ) delta GROUP BY 1, 3 HAVING sum(d) <> 0 ORDER BY 1, 3
    ON CONFLICT (project_id, day, status) DO UPDATE SET delta = s.delta + excluded.delta;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER images_analytics_insert AFTER INSERT ON images REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_stage_apply();
CREATE TRIGGER images_analytics_update AFTER UPDATE ON images REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_stage_apply();
CREATE TRIGGER images_analytics_delete AFTER DELETE ON images REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_stage_apply();

-- A deleted project's rollups go with it (its images' delete trigger above has run by then).
CREATE FUNCTION analytics_project_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM analytics_member_days a USING old_rows o WHERE a.project_id = o.id;
  DELETE FROM analytics_member_clock a USING old_rows o WHERE a.project_id = o.id;
  DELETE FROM analytics_stage_days a USING old_rows o WHERE a.project_id = o.id;
  RETURN NULL;
END;
$$;

CREATE TRIGGER projects_analytics_delete AFTER DELETE ON projects REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_project_gone();

-- Backfill from the history kept so far: the change log and the events go once more through the
-- trigger functions above, as one statement each into a copy that the transaction drops, so the
-- backfill counts by the very rules of the triggers (the submitter look-up reads image_events,
-- which holds every event already).
CREATE TEMP TABLE analytics_backfill_changes (LIKE annotation_changes) ON COMMIT DROP;
CREATE TRIGGER analytics_backfill_changes AFTER INSERT ON analytics_backfill_changes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_changes_apply();
INSERT INTO analytics_backfill_changes SELECT * FROM annotation_changes;
CREATE TEMP TABLE analytics_backfill_events (LIKE image_events) ON COMMIT DROP;
CREATE TRIGGER analytics_backfill_events AFTER INSERT ON analytics_backfill_events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_events_apply();
INSERT INTO analytics_backfill_events SELECT * FROM image_events;

-- Stages: each image (not archived) enters its first known stage (the first status event's
-- from_value, else its stage now) on the day it was made; each status event moves it on its day.
-- Archiving before today is not in the log, so an archived image counts in no day.
INSERT INTO analytics_stage_days AS s (project_id, day, status, delta)
SELECT project_id, day, status, sum(d) FROM (
  SELECT i.project_id, (i.created_at AT TIME ZONE 'UTC')::date AS day,
         coalesce((SELECT e.from_value FROM image_events e WHERE e.image_id = i.id AND e.type = 'status' ORDER BY e.id LIMIT 1), i.status) AS status, 1 AS d
  FROM images i WHERE NOT i.is_archived
  UNION ALL
  SELECT i.project_id, (e.created_at AT TIME ZONE 'UTC')::date, e.from_value, -1 FROM image_events e JOIN images i ON i.id = e.image_id WHERE e.type = 'status' AND NOT i.is_archived
  UNION ALL
  SELECT i.project_id, (e.created_at AT TIME ZONE 'UTC')::date, e.to_value, 1 FROM image_events e JOIN images i ON i.id = e.image_id WHERE e.type = 'status' AND NOT i.is_archived
) moves WHERE status IS NOT NULL GROUP BY 1, 2, 3 HAVING sum(d) <> 0
ON CONFLICT (project_id, day, status) DO UPDATE SET delta = s.delta + excluded.delta;
