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
