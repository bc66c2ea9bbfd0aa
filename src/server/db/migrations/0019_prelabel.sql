-- Pre-label jobs (issue 34): a model draws first, people accept or reject what it drew.
--
-- 1. images.pending_predictions: the annotations of the image whose `source` says they are a
--    model's prediction still pending ({"source": {"model_id", "score", "pending": true}}). Statement
--    triggers on annotations keep it, like class_names (0011), so every write path (saves, batch
--    saves, restores, imports, live rebases) keeps it without knowing about it. The images list
--    filters on it (has_pending_predictions) and shows it on each tile. Images are updated only
--    when their count really changes (the folder-stats trigger fires on every UPDATE of images).
ALTER TABLE images ADD COLUMN pending_predictions integer NOT NULL DEFAULT 0;

CREATE FUNCTION image_pending_predictions_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta_images uuid[];
  delta_counts integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(d.image_id), array_agg(d.n) INTO delta_images, delta_counts
    FROM (SELECT image_id, count(*)::integer AS n FROM new_rows WHERE (data -> 'source' ->> 'pending') = 'true' GROUP BY image_id) d;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(d.image_id), array_agg(-d.n) INTO delta_images, delta_counts
    FROM (SELECT image_id, count(*)::integer AS n FROM old_rows WHERE (data -> 'source' ->> 'pending') = 'true' GROUP BY image_id) d;
  ELSE
    SELECT array_agg(d.image_id), array_agg(d.n) INTO delta_images, delta_counts
    FROM (
      SELECT image_id, sum(n)::integer AS n FROM (
        SELECT image_id, 1 AS n FROM new_rows WHERE (data -> 'source' ->> 'pending') = 'true'
        UNION ALL
        SELECT image_id, -1 FROM old_rows WHERE (data -> 'source' ->> 'pending') = 'true'
      ) x GROUP BY image_id HAVING sum(n) <> 0
    ) d;
  END IF;
  IF delta_images IS NOT NULL THEN
    UPDATE images i SET pending_predictions = greatest(0, i.pending_predictions + ch.n)
    FROM unnest(delta_images, delta_counts) AS ch(image_id, n)
    WHERE i.id = ch.image_id;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER annotations_pending_insert AFTER INSERT ON annotations REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_pending_predictions_apply();
CREATE TRIGGER annotations_pending_update AFTER UPDATE ON annotations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_pending_predictions_apply();
CREATE TRIGGER annotations_pending_delete AFTER DELETE ON annotations REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION image_pending_predictions_apply();

-- Backfill: predictions stored before this migration (none are expected; the count starts right).
UPDATE images i SET pending_predictions = c.n
FROM (SELECT image_id, count(*)::integer AS n FROM annotations WHERE (data -> 'source' ->> 'pending') = 'true' GROUP BY image_id) c
WHERE i.id = c.image_id;

-- 2. Pre-label jobs. One row per job (POST /projects/{id}/prelabel), with its options, its state
--    and its report, and one row per image it covers, fixed when it is created (`seq` is the order).
--    An image row is 'todo' until the job has saved its predictions ('done', with how many) or
--    skipped it ('skipped', with why). The work runs on the job queue (kind 'prelabel', one queue
--    row per organization, src/server/services/prelabel): see there why.
CREATE TABLE prelabel_jobs (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  model_id text NOT NULL,
  created_by uuid NOT NULL,
  options jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  total integer NOT NULL DEFAULT 0,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX prelabel_jobs_active_idx ON prelabel_jobs (organization_id, created_at) WHERE status IN ('queued', 'running');

CREATE TABLE prelabel_job_images (
  job_id uuid NOT NULL REFERENCES prelabel_jobs(id) ON DELETE CASCADE,
  image_id uuid NOT NULL,
  seq integer NOT NULL,
  state text NOT NULL DEFAULT 'todo' CHECK (state IN ('todo', 'done', 'skipped')),
  predictions integer NOT NULL DEFAULT 0,
  reason text,
  PRIMARY KEY (job_id, image_id)
);
CREATE INDEX prelabel_job_images_todo_idx ON prelabel_job_images (job_id, seq) WHERE state = 'todo';
