-- The file-name search (issue 32 §4) at scale (issue 35 §3).
--
-- No new b-tree: at 1M images (bench/dataset.bench.ts --million) the pages the issue names find
-- theirs already: newest first images_project_created_idx, by file name the unique key
-- images_project_id_filename_key (project_id, filename), a stage images_project_status_idx, a
-- folder images_folder_created_idx; a keyset page (after=, services/images/read.ts) starts at its
-- cursor in the same index (EXPLAIN: 0.3-7 ms in the database where OFFSET 100,000 took 148-536).

-- images_filename_trgm_idx: the search filter is lower(filename) LIKE '%text%' (image-filter.ts),
-- which no b-tree can answer; a trigram GIN index finds the matching rows when pg_trgm is there.
-- PostgreSQL ships it as a trusted extension (the database owner may create it); embedded PGlite
-- loads no extension, and a server without pg_trgm or the right to create it keeps the scan: the
-- migration runs everywhere and the search means the same with or without the index. Built inside
-- the migration's transaction: 23.7 s on 1M images (load 17), writes to images wait for it
-- (docs/performance.md, 'What the migrations cost an upgrade').
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
