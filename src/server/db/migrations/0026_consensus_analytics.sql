-- Consensus in the analytics (issue 36 §3; rules in docs/analytics.md "Consensus in the counts").
-- An overlapped image is the work of each of its N annotators, so:
--   - each draft's submit counts images_submitted for its holder (the drafts trigger below), and the
--     last submitter's move of the image into review no longer counts as a submit of its own;
--   - a review outcome (accept, reject) counts for every holder of a draft of the image, not only
--     for whoever moved it into review last;
--   - each draft save adds active time to its holder's clock like any save (the drafts trigger);
--     its shapes per class are counted by the save itself (saveToLayer in
--     services/annotations/gt-layer.ts, as applyChange does for the image's saves).
-- The functions are CREATE OR REPLACE and the triggers are made with the drafts table's own
-- lifetime, so a database whose drafts table is dropped and made again (0024 run again) takes this
-- migration again too.

-- 0020's rule with drafts: an image with drafts is an overlapped image (its overlap can change only
-- before the first draft, 0024), and its outcomes go to each drafter.
CREATE OR REPLACE FUNCTION analytics_events_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_member_days AS s (project_id, day, user_id, class_name, images_submitted, images_accepted, images_rejected, issues_opened, issues_resolved)
  SELECT project_id, day, who, '', sum(sub), sum(acc), sum(rej), sum(op), sum(res) FROM (
    SELECT i.project_id, (n.created_at AT TIME ZONE 'UTC')::date AS day, w.who,
           (n.type = 'status' AND n.to_value = 'review' AND NOT o.overlapped)::int AS sub,
           (n.type = 'status' AND n.from_value = 'review' AND n.to_value = 'complete')::int AS acc,
           (n.type = 'status' AND n.from_value = 'review' AND n.to_value IN ('annotating', 'new'))::int AS rej,
           (n.type = 'issue' AND n.to_value = 'open' AND n.from_value IS NULL)::int AS op,
           (n.type = 'issue' AND n.to_value = 'resolved')::int AS res
    FROM new_rows n JOIN images i ON i.id = n.image_id
    CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM drafts d WHERE d.image_id = n.image_id) AS overlapped) o
    CROSS JOIN LATERAL (
      -- A review outcome: each drafter of an overlapped image, else whoever moved it into review last.
      SELECT d.user_id AS who FROM drafts d WHERE n.type = 'status' AND n.from_value = 'review' AND o.overlapped AND d.image_id = n.image_id
      UNION ALL
      SELECT (SELECT e.user_id FROM image_events e WHERE e.image_id = n.image_id AND e.type = 'status' AND e.to_value = 'review' AND e.id < n.id ORDER BY e.id DESC LIMIT 1)
      WHERE n.type = 'status' AND n.from_value = 'review' AND NOT o.overlapped
      UNION ALL
      SELECT n.user_id WHERE NOT (n.type = 'status' AND n.from_value = 'review')
    ) w
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

-- A draft's own events: its submit (submitted_at set) counts images_submitted for its holder on
-- that UTC day; its save (saved_at moved on) adds the gap since the holder's previous save in the
-- project to their active time when it is at most 5 minutes, as 0020/0023's change-row trigger
-- does for the image's saves (the clock row locked first, a save earlier than the last adds nothing).
CREATE OR REPLACE FUNCTION analytics_draft_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_at timestamptz;
  gap_ms double precision;
BEGIN
  IF NEW.submitted_at IS NOT NULL AND OLD.submitted_at IS NULL THEN
    INSERT INTO analytics_member_days AS s (project_id, day, user_id, class_name, images_submitted)
    VALUES (NEW.project_id, (NEW.submitted_at AT TIME ZONE 'UTC')::date, NEW.user_id, '', 1)
    ON CONFLICT (project_id, day, user_id, class_name) DO UPDATE SET images_submitted = s.images_submitted + 1;
  END IF;
  IF NEW.saved_at IS NOT NULL AND NEW.saved_at IS DISTINCT FROM OLD.saved_at THEN
    INSERT INTO analytics_member_clock (project_id, user_id, last_save_at) VALUES (NEW.project_id, NEW.user_id, NULL)
    ON CONFLICT (project_id, user_id) DO NOTHING;
    SELECT c.last_save_at INTO last_at FROM analytics_member_clock c WHERE c.project_id = NEW.project_id AND c.user_id = NEW.user_id FOR UPDATE;
    gap_ms := extract(epoch FROM NEW.saved_at - last_at) * 1000;
    IF gap_ms > 0 AND gap_ms <= 300000 THEN
      INSERT INTO analytics_member_days AS s (project_id, day, user_id, class_name, active_ms)
      VALUES (NEW.project_id, (NEW.saved_at AT TIME ZONE 'UTC')::date, NEW.user_id, '', gap_ms::bigint)
      ON CONFLICT (project_id, day, user_id, class_name) DO UPDATE SET active_ms = s.active_ms + excluded.active_ms;
    END IF;
    UPDATE analytics_member_clock c SET last_save_at = GREATEST(c.last_save_at, NEW.saved_at) WHERE c.project_id = NEW.project_id AND c.user_id = NEW.user_id;
  END IF;
  RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS drafts_analytics ON drafts;
CREATE TRIGGER drafts_analytics AFTER UPDATE OF submitted_at, saved_at ON drafts FOR EACH ROW
  WHEN ((NEW.submitted_at IS NOT NULL AND OLD.submitted_at IS NULL) OR (NEW.saved_at IS NOT NULL AND NEW.saved_at IS DISTINCT FROM OLD.saved_at))
  EXECUTE FUNCTION analytics_draft_apply();

-- Backfill: the history of the overlapped images so far, counted again by the rules above. What
-- 0020's rule counted for them is taken back, and the new rule's counts put in, as deltas:
--   - each move of an overlapped image into review was the end of a round in which every drafter
--     submitted once: a submit for each drafter on that day (their own submit times of past rounds
--     were not kept), none for the mover;
--   - a draft submitted in a round still under way (image new or annotating): a submit on its day;
--   - each review outcome: for every drafter instead of the last mover into review;
--   - the shapes now in each draft: created by its holder on the day of its last save, per class
--     (the edits and deletions of drafts before this migration were not recorded anywhere).
-- Active time of past draft saves cannot be told (only the last save time was kept).
CREATE TEMP TABLE analytics_consensus_fix (project_id uuid, day date, user_id uuid, sub int, acc int, rej int) ON COMMIT DROP;
INSERT INTO analytics_consensus_fix
SELECT i.project_id, (e.created_at AT TIME ZONE 'UTC')::date, e.user_id, -1, 0, 0
FROM image_events e JOIN images i ON i.id = e.image_id
WHERE e.type = 'status' AND e.to_value = 'review' AND e.user_id IS NOT NULL AND EXISTS (SELECT 1 FROM drafts d WHERE d.image_id = e.image_id)
UNION ALL
SELECT i.project_id, (e.created_at AT TIME ZONE 'UTC')::date, d.user_id, 1, 0, 0
FROM image_events e JOIN images i ON i.id = e.image_id JOIN drafts d ON d.image_id = e.image_id
WHERE e.type = 'status' AND e.to_value = 'review'
UNION ALL
SELECT i.project_id, (d.submitted_at AT TIME ZONE 'UTC')::date, d.user_id, 1, 0, 0
FROM drafts d JOIN images i ON i.id = d.image_id
WHERE d.submitted_at IS NOT NULL AND i.status IN ('new', 'annotating')
UNION ALL
SELECT project_id, day, who, 0, -acc, -rej FROM (
  SELECT i.project_id, (e.created_at AT TIME ZONE 'UTC')::date AS day,
         (SELECT p.user_id FROM image_events p WHERE p.image_id = e.image_id AND p.type = 'status' AND p.to_value = 'review' AND p.id < e.id ORDER BY p.id DESC LIMIT 1) AS who,
         (e.to_value = 'complete')::int AS acc, (e.to_value IN ('annotating', 'new'))::int AS rej
  FROM image_events e JOIN images i ON i.id = e.image_id
  WHERE e.type = 'status' AND e.from_value = 'review' AND EXISTS (SELECT 1 FROM drafts d WHERE d.image_id = e.image_id)
) old_outcomes WHERE who IS NOT NULL
UNION ALL
SELECT i.project_id, (e.created_at AT TIME ZONE 'UTC')::date, d.user_id, 0, (e.to_value = 'complete')::int, (e.to_value IN ('annotating', 'new'))::int
FROM image_events e JOIN images i ON i.id = e.image_id JOIN drafts d ON d.image_id = e.image_id
WHERE e.type = 'status' AND e.from_value = 'review';

INSERT INTO analytics_member_days AS s (project_id, day, user_id, class_name, images_submitted, images_accepted, images_rejected)
SELECT project_id, day, user_id, '', sum(sub), sum(acc), sum(rej) FROM analytics_consensus_fix
GROUP BY 1, 2, 3 HAVING sum(sub) <> 0 OR sum(acc) <> 0 OR sum(rej) <> 0 ORDER BY 1, 2, 3
ON CONFLICT (project_id, day, user_id, class_name) DO UPDATE SET
  images_submitted = s.images_submitted + excluded.images_submitted,
  images_accepted = s.images_accepted + excluded.images_accepted,
  images_rejected = s.images_rejected + excluded.images_rejected;

INSERT INTO analytics_member_days AS s (project_id, day, user_id, class_name, shapes_created)
SELECT d.project_id, (d.saved_at AT TIME ZONE 'UTC')::date, d.user_id, coalesce(x->>'name', ''), count(*)
FROM drafts d CROSS JOIN LATERAL jsonb_array_elements(d.annotations) x
WHERE d.saved_at IS NOT NULL
GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
ON CONFLICT (project_id, day, user_id, class_name) DO UPDATE SET shapes_created = s.shapes_created + excluded.shapes_created;
