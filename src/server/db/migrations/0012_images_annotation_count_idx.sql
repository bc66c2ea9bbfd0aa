-- The images list over a whole project by annotations (issue 32 §4): sorted by annotation count,
-- filtered by has_annotations / min_annotations / max_annotations, and counted for a class filter.
-- images_folder_annotations_idx starts with the folder, so a whole-project page sorted by count
-- sorted every image (241 ms on 100k images, PostgreSQL, load 15; 0.7 ms with this index), and a
-- count by class read every heap page through the GIN bitmap; with class_names included here that
-- count is an index-only scan (34 -> 27 ms at the same load), and a count range reads only its
-- part of the index (12 -> 2.7 ms for "no annotations").
CREATE INDEX images_project_annotations_idx ON images (project_id, is_archived, annotation_count, id) INCLUDE (class_names);
