-- Dataset imports (issue 17). One row per uploaded archive: created with an upload URL that writes
-- `staging_key`, queued by start (a `jobs` row of kind 'import' carries the import's id), then run
-- by a queue worker, which records how far it got (`done` of `total` images) and the report after
-- every image, so a restarted import skips what is done and the report is never lost.
CREATE TABLE imports (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  created_by uuid,
  filename text NOT NULL,
  size bigint NOT NULL,
  -- 'auto' until the worker detects the format, then the format read
  format text NOT NULL DEFAULT 'auto',
  folder_path text NOT NULL DEFAULT '',
  staging_key text NOT NULL,
  status text NOT NULL DEFAULT 'uploading' CHECK (status IN ('uploading', 'queued', 'running', 'done', 'failed')),
  done integer NOT NULL DEFAULT 0,
  total integer NOT NULL DEFAULT 0,
  report jsonb NOT NULL DEFAULT '{}'::jsonb,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX imports_project_idx ON imports (project_id, created_at DESC);
