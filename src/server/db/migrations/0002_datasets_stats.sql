-- Datasets (issue 3), second step: per-folder image counts (applied after 0002_datasets.sql).
-- Image counts per (project, folder, archived, status, mime type), kept by statement triggers on
-- images. The list's total for folder / archive / status / mime filters and the folder tree's counts
-- read a few rows here instead of counting a folder's images (20k+ in one folder is ordinary).
CREATE TABLE image_folder_stats (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  virtual_folder_path text NOT NULL,
  is_archived boolean NOT NULL,
  status text NOT NULL,
  mime_type text NOT NULL,
  image_count bigint NOT NULL,
  PRIMARY KEY (project_id, virtual_folder_path, is_archived, status, mime_type)
);

CREATE FUNCTION image_folder_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- One grouped upsert per statement: a bulk update of 100k rows costs one aggregate, not 100k upserts.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO image_folder_stats AS s (project_id, virtual_folder_path, is_archived, status, mime_type, image_count)
    SELECT project_id, virtual_folder_path, is_archived, status, mime_type, count(*) FROM new_rows GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, virtual_folder_path, is_archived, status, mime_type) DO UPDATE SET image_count = s.image_count + excluded.image_count;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO image_folder_stats AS s (project_id, virtual_folder_path, is_archived, status, mime_type, image_count)
    SELECT project_id, virtual_folder_path, is_archived, status, mime_type, -count(*) FROM old_rows GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, virtual_folder_path, is_archived, status, mime_type) DO UPDATE SET image_count = s.image_count + excluded.image_count;
    DELETE FROM image_folder_stats s USING (SELECT DISTINCT project_id, virtual_folder_path FROM old_rows) o
    WHERE s.project_id = o.project_id AND s.virtual_folder_path = o.virtual_folder_path AND s.image_count = 0;
  ELSE
    INSERT INTO image_folder_stats AS s (project_id, virtual_folder_path, is_archived, status, mime_type, image_count)
    SELECT project_id, virtual_folder_path, is_archived, status, mime_type, sum(d) FROM (
      SELECT project_id, virtual_folder_path, is_archived, status, mime_type, 1 AS d FROM new_rows
      UNION ALL
      SELECT project_id, virtual_folder_path, is_archived, status, mime_type, -1 AS d FROM old_rows
    ) delta GROUP BY 1, 2, 3, 4, 5 HAVING sum(d) <> 0
    ON CONFLICT (project_id, virtual_folder_path, is_archived, status, mime_type) DO UPDATE SET image_count = s.image_count + excluded.image_count;
    DELETE FROM image_folder_stats s USING (SELECT DISTINCT project_id, virtual_folder_path FROM old_rows) o
    WHERE s.project_id = o.project_id AND s.virtual_folder_path = o.virtual_folder_path AND s.image_count = 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER images_stats_insert AFTER INSERT ON images REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_folder_stats_apply();
CREATE TRIGGER images_stats_update AFTER UPDATE ON images REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_folder_stats_apply();
CREATE TRIGGER images_stats_delete AFTER DELETE ON images REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION image_folder_stats_apply();

INSERT INTO image_folder_stats (project_id, virtual_folder_path, is_archived, status, mime_type, image_count)
SELECT project_id, virtual_folder_path, is_archived, status, mime_type, count(*) FROM images GROUP BY 1, 2, 3, 4, 5;
