-- Datasets (issue 3): upload name reservations, thumbnail sizes, and the indexes the image list needs.

-- Bytes of each image's WebP thumbnail, so storage usage can count them.
ALTER TABLE images ADD COLUMN thumbnail_size bigint NOT NULL DEFAULT 0;

-- A filename handed out by check-filename or upload-url is held for a while, so two uploads of
-- cat.png at once get cat.png and cat_1.png instead of overwriting each other's object.
CREATE TABLE upload_reservations (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  filename text NOT NULL,
  reserved_by uuid,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, filename)
);
CREATE INDEX upload_reservations_lower_idx ON upload_reservations (project_id, lower(filename));
CREATE INDEX upload_reservations_expiry_idx ON upload_reservations (expires_at);

-- Filenames are unique per project regardless of case (objects must not clash on case-insensitive disks or in zips).
CREATE INDEX images_project_lower_filename_idx ON images (project_id, lower(filename));

-- List indexes: one folder of one project, archived or not, ordered by the sort field with id as the
-- tie-breaker. Same direction on both columns, so one index serves asc (forward) and desc (backward).
DROP INDEX images_folder_created_idx;
DROP INDEX images_folder_status_idx;
DROP INDEX images_project_created_idx;
CREATE INDEX images_folder_created_idx ON images (project_id, is_archived, virtual_folder_path, created_at, id);
CREATE INDEX images_folder_updated_idx ON images (project_id, is_archived, virtual_folder_path, updated_at, id);
CREATE INDEX images_folder_size_idx ON images (project_id, is_archived, virtual_folder_path, file_size, id);
CREATE INDEX images_folder_annotations_idx ON images (project_id, is_archived, virtual_folder_path, annotation_count, id);
CREATE INDEX images_folder_mime_idx ON images (project_id, is_archived, virtual_folder_path, mime_type, id);
-- Status sorts in stage order (new, annotating, complete); the list query uses this very expression.
CREATE INDEX images_folder_stage_idx ON images (project_id, is_archived, virtual_folder_path, (CASE status WHEN 'new' THEN 0 WHEN 'annotating' THEN 1 ELSE 2 END), id);
-- Status filter with the default order.
CREATE INDEX images_folder_status_idx ON images (project_id, is_archived, virtual_folder_path, status, created_at, id);
-- The whole project (Archive view, no folder_path), default order and status filter.
CREATE INDEX images_project_created_idx ON images (project_id, is_archived, created_at, id);
CREATE INDEX images_project_status_idx ON images (project_id, is_archived, status, created_at, id);
