-- The images list at a million images (issue 35 §3) and the file-name search (issue 32 §4).
--
-- images_project_filename_idx: a whole-project page sorted by file name (the Data tab's name sort
-- without a folder) had only images_folder_filename_idx, which starts with the folder, so every
-- image of the project was sorted for each page; with it a page reads its 200 entries in order,
-- and a keyset page (after=, services/images/read.ts) starts at its cursor in this index.
CREATE INDEX IF NOT EXISTS images_project_filename_idx ON images (project_id, is_archived, filename);

-- images_filename_trgm_idx: the search filter is lower(filename) LIKE '%text%' (image-filter.ts),
-- which no b-tree can answer; a trigram GIN index finds the matching rows when pg_trgm is there.
-- PostgreSQL ships it as a trusted extension (the database owner may create it); embedded PGlite
-- loads no extension, and a server without pg_trgm or the right to create it keeps the scan: the
-- migration runs everywhere and the search means the same with or without the index.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AND EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION pg_trgm;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pg_trgm is not created (no privilege): the file-name search scans';
    END;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX IF NOT EXISTS images_filename_trgm_idx ON images USING gin (lower(filename) gin_trgm_ops);
  END IF;
END
$$;
