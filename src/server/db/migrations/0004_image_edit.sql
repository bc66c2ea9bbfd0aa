-- Magic Image Edit (issue 8). A job is a row of `jobs` (kind 'image_edit'): status, progress,
-- attempts, and a lease (locked_by / locked_until, renewed as a heartbeat) so several server
-- processes share the work and a job outlives the process that started it. Each source image is
-- one row here, so a resumed job skips what is already done and never registers a copy twice.
CREATE TABLE image_edit_items (
  job_id uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  position integer NOT NULL,
  source_image_id uuid NOT NULL,
  source_filename text NOT NULL,
  -- pending -> generated (edited bytes stored under output_filename) -> registered | failed
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'generated', 'registered', 'failed')),
  output_filename text,
  output_mime text,
  -- 'exact' (geometry transformed), 'copy' (generative: copied for review), or null (none carried)
  label_mode text,
  -- The geometric steps applied, in order (flip_h, flip_v, rotate_90, ...), to carry the labels.
  transforms jsonb NOT NULL DEFAULT '[]'::jsonb,
  result_image_id uuid,
  registration jsonb,
  error text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, position)
);
CREATE INDEX jobs_kind_claim_idx ON jobs (kind, status, run_after);
