-- Annotations as rows (issue 14). An image's annotations were one json document, so every save,
-- even of one shape, read and rewrote all of it (8.5 s for a one-shape edit of a 100k-shape image
-- on PGlite). Now each annotation is a row keyed by (image_id, id) and a save touches only the rows
-- it changes; annotation_documents keeps the image's version header (version, who, when) and the
-- next paint-order number. Every committed save is one row of annotation_changes: what it
-- upserted, which ids it removed and their values before, so changes since a version can be read
-- back and an earlier version rebuilt.
--
-- The old documents move into rows at start-up, in batches (db/annotation-rows.ts); until a
-- document has moved, its `annotations` column holds it, afterwards NULL.
ALTER TABLE annotation_documents ALTER COLUMN annotations DROP DEFAULT;
ALTER TABLE annotation_documents ALTER COLUMN annotations DROP NOT NULL;
ALTER TABLE annotation_documents ADD COLUMN next_seq bigint NOT NULL DEFAULT 0;
UPDATE annotation_documents SET annotations = NULL WHERE json_array_length(annotations) = 0;
CREATE INDEX annotation_documents_unmoved_idx ON annotation_documents (image_id) WHERE annotations IS NOT NULL;

CREATE TABLE annotations (
  image_id uuid NOT NULL REFERENCES annotation_documents(image_id) ON DELETE CASCADE,
  id text NOT NULL,
  -- Paint order within the image: a new shape takes the header's next_seq, a changed one keeps its place.
  seq bigint NOT NULL,
  name text NOT NULL,
  -- box | polygon | polyline | keypoint | segmentation: what the stats count by.
  kind text NOT NULL,
  -- The annotation as the client sent it (json keeps the text as written; nothing is re-encoded).
  data json NOT NULL,
  PRIMARY KEY (image_id, id)
);
CREATE INDEX annotations_paint_order_idx ON annotations (image_id, seq);

CREATE TABLE annotation_changes (
  image_id uuid NOT NULL REFERENCES annotation_documents(image_id) ON DELETE CASCADE,
  version integer NOT NULL,
  user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The shapes this version added or changed, as saved.
  upserts json NOT NULL,
  -- Ids this version removed (only ids that were there).
  removed_ids json NOT NULL,
  -- The values before this version of every shape it changed or removed (added ones had none).
  before json NOT NULL,
  added integer NOT NULL DEFAULT 0,
  changed integer NOT NULL DEFAULT 0,
  removed integer NOT NULL DEFAULT 0,
  -- Set when this version restored an earlier one.
  restored_from integer,
  PRIMARY KEY (image_id, version)
);
CREATE INDEX annotation_changes_created_idx ON annotation_changes (created_at);
