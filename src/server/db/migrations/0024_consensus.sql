-- Consensus (issue 36 §3; rules in docs/life-of-an-annotation.md "A draft's path"). An image with
-- overlap N (2..5; 1 is a normal image) goes to N different annotators through queue/next. Each
-- taker gets a draft: their own list, which their load-data, changes and saves read and write
-- instead of the image's annotations (never its rows, change log, counters, live channel or
-- exports). Submit marks the draft submitted; when all N are, the image goes to review, and a
-- reviewer's merge writes the image's annotations as one history entry. Drafts stay for the record.
ALTER TABLE images ADD COLUMN overlap smallint NOT NULL DEFAULT 1 CHECK (overlap BETWEEN 1 AND 5);

-- The queue's look for an overlapped image with a free slot, oldest first; only such images are in it.
CREATE INDEX images_overlap_queue_idx ON images (project_id, created_at, id)
  WHERE overlap > 1 AND NOT is_archived AND status IN ('new', 'annotating');

-- One draft per person and image (the unique key is what makes "never the same person twice" hold
-- under concurrent takers); a slot is a row, so the image's drafts count its taken slots.
CREATE TABLE drafts (
  id uuid PRIMARY KEY,
  image_id uuid NOT NULL REFERENCES images(id) ON DELETE CASCADE,
  project_id uuid NOT NULL,
  user_id uuid NOT NULL,
  annotations jsonb NOT NULL DEFAULT '[]',
  version integer NOT NULL DEFAULT 0,
  taken_at timestamptz NOT NULL DEFAULT now(),
  saved_at timestamptz,
  submitted_at timestamptz,
  CONSTRAINT drafts_image_user_key UNIQUE (image_id, user_id)
);
-- The queue's "my open drafts" and a member's drafts in a project.
CREATE INDEX drafts_user_idx ON drafts (project_id, user_id, submitted_at);

-- The change log marks the version a reviewer's merge wrote, so history shows it as the merge.
ALTER TABLE annotation_changes ADD COLUMN merged boolean NOT NULL DEFAULT false;
