-- Image counts per class (issue 32 §4): per (project, class, archived, folder), how many images have
-- that class in images.class_names. The images list's total for a one-class filter (with or without
-- a folder and the archive filter, nothing else) and the stats' images_by_class add up a few rows
-- here instead of counting every matching image: about 50k images for a common class in a 100k
-- project took 25-45 ms to count, over the list's 25 ms target.
--
-- Kept by statement triggers on images, like image_folder_stats (0002): class_names itself is
-- written by the annotation triggers (0011, 0014) as an UPDATE of images, so this sees every class
-- change, and also archiving, folder moves, new images and deletions, whatever path made them.
-- An UPDATE counts +1 per new row's class and -1 per old row's, grouped, and what cancels (rows
-- whose classes, archive state and folder stayed) drops out. A join of the old and new rows by id
-- was tried first: PostgreSQL ran it as a nested loop, 2.4 s for a bulk update of 20k images (load
-- 10), against 130-200 ms this way. Rows that reach zero are removed. No foreign key to projects,
-- for the reason in 0002_datasets_stats_fk.sql.
--
-- Lock order: the counter rows are upserted sorted by their key, so two transactions that touch
-- the same rows (two saves adding classes {a, b} and {b, a} to images of one folder) lock them in
-- the same order and wait instead of deadlocking. The folder-stats trigger (0002) upserted in the
-- order its GROUP BY gave; it is redefined at the end with the same ORDER BY, otherwise unchanged.
CREATE TABLE image_class_stats (
  project_id uuid NOT NULL,
  class_name text NOT NULL,
  is_archived boolean NOT NULL,
  virtual_folder_path text NOT NULL,
  image_count bigint NOT NULL,
  PRIMARY KEY (project_id, class_name, is_archived, virtual_folder_path)
);

CREATE FUNCTION image_class_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- The statement's change, one entry per (project, class, archived, folder) whose count moves.
  d_projects uuid[];
  d_classes text[];
  d_archived boolean[];
  d_folders text[];
  d_counts bigint[];
  -- The rows that reached zero.
  z_projects uuid[];
  z_classes text[];
  z_archived boolean[];
  z_folders text[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(g.project_id), array_agg(g.class_name), array_agg(g.is_archived), array_agg(g.virtual_folder_path), array_agg(g.n)
    INTO d_projects, d_classes, d_archived, d_folders, d_counts
    FROM (SELECT r.project_id, c AS class_name, r.is_archived, r.virtual_folder_path, count(*) AS n
          FROM new_rows r CROSS JOIN LATERAL unnest(r.class_names) c GROUP BY 1, 2, 3, 4) g;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(g.project_id), array_agg(g.class_name), array_agg(g.is_archived), array_agg(g.virtual_folder_path), array_agg(g.n)
    INTO d_projects, d_classes, d_archived, d_folders, d_counts
    FROM (SELECT r.project_id, c AS class_name, r.is_archived, r.virtual_folder_path, -count(*) AS n
          FROM old_rows r CROSS JOIN LATERAL unnest(r.class_names) c GROUP BY 1, 2, 3, 4) g;
  ELSE
    -- New rows count +1 per class, old rows -1; what cancels (most of a bulk stage change) drops out.
    SELECT array_agg(g.project_id), array_agg(g.class_name), array_agg(g.is_archived), array_agg(g.virtual_folder_path), array_agg(g.n)
    INTO d_projects, d_classes, d_archived, d_folders, d_counts
    FROM (
      SELECT project_id, class_name, is_archived, virtual_folder_path, sum(d)::bigint AS n FROM (
        SELECT r.project_id, c AS class_name, r.is_archived, r.virtual_folder_path, 1 AS d FROM new_rows r CROSS JOIN LATERAL unnest(r.class_names) c
        UNION ALL
        SELECT r.project_id, c, r.is_archived, r.virtual_folder_path, -1 FROM old_rows r CROSS JOIN LATERAL unnest(r.class_names) c
      ) delta GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0
    ) g;
  END IF;
  IF d_projects IS NULL THEN
    RETURN NULL;
  END IF;
  WITH up AS (
    INSERT INTO image_class_stats AS s (project_id, class_name, is_archived, virtual_folder_path, image_count)
    SELECT * FROM unnest(d_projects, d_classes, d_archived, d_folders, d_counts) ORDER BY 1, 2, 3, 4
    ON CONFLICT (project_id, class_name, is_archived, virtual_folder_path) DO UPDATE SET image_count = s.image_count + excluded.image_count
    RETURNING s.project_id, s.class_name, s.is_archived, s.virtual_folder_path, s.image_count
  )
  SELECT array_agg(up.project_id), array_agg(up.class_name), array_agg(up.is_archived), array_agg(up.virtual_folder_path)
  INTO z_projects, z_classes, z_archived, z_folders
  FROM up WHERE up.image_count = 0;
  IF z_projects IS NOT NULL THEN
    DELETE FROM image_class_stats s USING unnest(z_projects, z_classes, z_archived, z_folders) AS z(project_id, class_name, is_archived, virtual_folder_path)
    WHERE s.project_id = z.project_id AND s.class_name = z.class_name AND s.is_archived = z.is_archived
      AND s.virtual_folder_path = z.virtual_folder_path AND s.image_count = 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER images_class_stats_insert AFTER INSERT ON images REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_class_stats_apply();
CREATE TRIGGER images_class_stats_update AFTER UPDATE ON images REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_class_stats_apply();
CREATE TRIGGER images_class_stats_delete AFTER DELETE ON images REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION image_class_stats_apply();

INSERT INTO image_class_stats (project_id, class_name, is_archived, virtual_folder_path, image_count)
SELECT i.project_id, c, i.is_archived, i.virtual_folder_path, count(*) FROM images i CROSS JOIN LATERAL unnest(i.class_names) c GROUP BY 1, 2, 3, 4;

-- The folder-stats trigger of 0002, its upserts sorted by key (see Lock order above).
CREATE OR REPLACE FUNCTION image_folder_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- One grouped upsert per statement: a bulk update of 100k rows costs one aggregate, not 100k upserts.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO image_folder_stats AS s (project_id, virtual_folder_path, is_archived, status, mime_type, image_count)
    SELECT project_id, virtual_folder_path, is_archived, status, mime_type, count(*) FROM new_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, virtual_folder_path, is_archived, status, mime_type) DO UPDATE SET image_count = s.image_count + excluded.image_count;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO image_folder_stats AS s (project_id, virtual_folder_path, is_archived, status, mime_type, image_count)
    SELECT project_id, virtual_folder_path, is_archived, status, mime_type, -count(*) FROM old_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, virtual_folder_path, is_archived, status, mime_type) DO UPDATE SET image_count = s.image_count + excluded.image_count;
    DELETE FROM image_folder_stats s USING (SELECT DISTINCT project_id, virtual_folder_path FROM old_rows) o
    WHERE s.project_id = o.project_id AND s.virtual_folder_path = o.virtual_folder_path AND s.image_count = 0;
  ELSE
    INSERT INTO image_folder_stats AS s (project_id, virtual_folder_path, is_archived, status, mime_type, image_count)
    SELECT project_id, virtual_folder_path, is_archived, status, mime_type, sum(d) FROM (
      SELECT project_id, virtual_folder_path, is_archived, status, mime_type, 1 AS d FROM new_rows
      UNION ALL
      SELECT project_id, virtual_folder_path, is_archived, status, mime_type, -1 AS d FROM old_rows
    ) delta GROUP BY 1, 2, 3, 4, 5 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, virtual_folder_path, is_archived, status, mime_type) DO UPDATE SET image_count = s.image_count + excluded.image_count;
    DELETE FROM image_folder_stats s USING (SELECT DISTINCT project_id, virtual_folder_path FROM old_rows) o
    WHERE s.project_id = o.project_id AND s.virtual_folder_path = o.virtual_folder_path AND s.image_count = 0;
  END IF;
  RETURN NULL;
END;
$$;
