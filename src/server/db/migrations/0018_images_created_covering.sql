-- Deep pages of the images list with a class or annotation-count filter (issue 32 §4). The list
-- picks a page's ids first (services/images/read.ts, a deferred join), but the newest-first indexes
-- held no class names, so every row an OFFSET skipped was still read from the table to test its
-- class: page 20 of class `car` (OFFSET 3,800 of half the images) read 8,190 buffers and took
-- 100 ms against 3 ms for page 1 (PostgreSQL, 100k images, load 14). With class_names and
-- annotation_count included, the skipped rows are index entries only (130 buffers, 15 ms at the
-- same load), and the page 1 of a class in one folder no longer visits the table either.
-- Same names and keys as before (0002), so every plan and comment that names them still holds;
-- class_names and annotation_count were already in other indexes, so no update that was HOT
-- stops being HOT.
DROP INDEX IF EXISTS images_project_created_idx;
CREATE INDEX images_project_created_idx ON images (project_id, is_archived, created_at, id) INCLUDE (class_names, annotation_count);
DROP INDEX IF EXISTS images_folder_created_idx;
CREATE INDEX images_folder_created_idx ON images (project_id, is_archived, virtual_folder_path, created_at, id) INCLUDE (class_names, annotation_count);
