-- Team workflow (issue 29): the review stage, assignments, issues pinned to regions with their
-- comments, and each image's activity. Existing images keep their status.
ALTER TABLE images DROP CONSTRAINT images_status_check;
ALTER TABLE images ADD CONSTRAINT images_status_check CHECK (status IN ('new', 'annotating', 'review', 'complete'));
-- No foreign key to profiles: an account purge removes the profile but the history keeps the id.
ALTER TABLE images ADD COLUMN assignee_id uuid;
ALTER TABLE images ADD COLUMN reviewer_id uuid;
-- Kept by services/workflow in the transaction that opens, resolves or reopens an issue.
ALTER TABLE images ADD COLUMN open_issues integer NOT NULL DEFAULT 0;

-- Sorting by stage follows the pipeline (services/images.ts STAGE_RANK is the same expression).
DROP INDEX images_folder_stage_idx;
CREATE INDEX images_folder_stage_idx ON images (project_id, is_archived, virtual_folder_path, (CASE status WHEN 'new' THEN 0 WHEN 'annotating' THEN 1 WHEN 'review' THEN 2 ELSE 3 END), id);

-- The list's assignee / reviewer filters and a person's own queue (oldest first).
CREATE INDEX images_assignee_idx ON images (project_id, assignee_id, is_archived, status, created_at, id) WHERE assignee_id IS NOT NULL;
CREATE INDEX images_reviewer_idx ON images (project_id, reviewer_id, is_archived, status, created_at, id) WHERE reviewer_id IS NOT NULL;
-- The queue's claim of the oldest unassigned image: the first row of a small partial index.
CREATE INDEX images_unassigned_new_idx ON images (project_id, created_at, id) WHERE assignee_id IS NULL AND status = 'new' AND NOT is_archived;
CREATE INDEX images_unreviewed_idx ON images (project_id, created_at, id) WHERE reviewer_id IS NULL AND status = 'review' AND NOT is_archived;
CREATE INDEX images_open_issues_idx ON images (project_id, is_archived, created_at, id) WHERE open_issues > 0;

CREATE TABLE issues (
  id uuid PRIMARY KEY,
  image_id uuid NOT NULL REFERENCES images(id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  -- {x, y, w, h} or {x, y} in image pixels; null: about the whole image.
  region jsonb,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX issues_image_idx ON issues (image_id, created_at, id);

CREATE TABLE issue_comments (
  id uuid PRIMARY KEY,
  issue_id uuid NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  body text NOT NULL,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX issue_comments_issue_idx ON issue_comments (issue_id, created_at, id);

-- One row per thing that happened to an image: stage changes, (re)assignments, issues opened or
-- resolved, comments. Read newest first by id (the activity's cursor).
CREATE TABLE image_events (
  id bigserial PRIMARY KEY,
  image_id uuid NOT NULL REFERENCES images(id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('status', 'assign', 'issue', 'comment')),
  user_id uuid,
  field text CHECK (field IN ('assignee', 'reviewer')),
  from_value text,
  to_value text,
  issue_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX image_events_image_idx ON image_events (image_id, id);
