-- Ground truth and scores (issue 36 §2; rules in docs/analytics.md "Ground truth and scores").
-- A reviewer marks an image's accepted annotations as ground truth: they are copied here, so later
-- edits of the image do not move the reference. Annotators get ground-truth images in their queue
-- at the project's gt_rate; what they draw on one goes to their attempt, never to the image's
-- annotations, its change log or an export, and their submit scores the attempt.
ALTER TABLE projects ADD COLUMN gt_rate real NOT NULL DEFAULT 0 CHECK (gt_rate >= 0 AND gt_rate <= 1);
-- The F1 an attempt needs to pass (the Analytics tab marks those under it).
ALTER TABLE projects ADD COLUMN gt_pass_threshold real NOT NULL DEFAULT 0.8 CHECK (gt_pass_threshold >= 0 AND gt_pass_threshold <= 1);

CREATE TABLE ground_truth (
  image_id uuid PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
  project_id uuid NOT NULL,
  annotations jsonb NOT NULL,
  marked_by uuid,
  marked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ground_truth_project_idx ON ground_truth (project_id, marked_at, image_id);

-- One attempt per person and ground-truth image: open (submitted_at null) while they work on it.
CREATE TABLE gt_attempts (
  id uuid PRIMARY KEY,
  image_id uuid NOT NULL REFERENCES images(id) ON DELETE CASCADE,
  project_id uuid NOT NULL,
  user_id uuid NOT NULL,
  annotations jsonb NOT NULL DEFAULT '[]',
  version integer NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL DEFAULT now(),
  saved_at timestamptz,
  submitted_at timestamptz,
  score jsonb,
  UNIQUE (image_id, user_id)
);
CREATE INDEX gt_attempts_user_idx ON gt_attempts (project_id, user_id, submitted_at);
CREATE INDEX gt_attempts_submitted_idx ON gt_attempts (project_id, submitted_at);

-- Shape counts leave the change-row trigger (issue 36 review): applyChange
-- (src/server/services/annotations/store.ts) counts each save's shapes per class as it writes them,
-- where it already knows what it created, edited and deleted. 0022's trigger read every upsert's
-- and every replaced shape's JSON once more (a whole-list save of 10,000 changed shapes cost 1.32x
-- the save without it). The trigger keeps only the active time, which reads no shape.
CREATE OR REPLACE FUNCTION analytics_changes_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
