-- The job queues wake when there is work instead of polling every second (src/server/jobs/queue.ts).
-- Every process's queues LISTEN on 'vellum_jobs'; these triggers notify it, with the job's kind, when
-- a row may have become claimable: a new row (queued, or written as running with a lease that will
-- run out), a row queued again (a retry, a handed-back job, a finished one queued anew), a row made
-- running other than by a claim (from a finished status, or with no lease or one already past), or
-- a lease cut short. A heartbeat (a later lease) and a claim (queued -> running) are not announced:
-- a queue that saw the job queued looks again shortly and then sleeps until its lease ends. The
-- notification leaves with the transaction's commit, so it reaches the other processes with the row.
CREATE OR REPLACE FUNCTION jobs_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('vellum_jobs', NEW.kind);
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS jobs_announce_insert ON jobs;
CREATE TRIGGER jobs_announce_insert AFTER INSERT ON jobs
  FOR EACH ROW WHEN (NEW.status IN ('queued', 'running')) EXECUTE FUNCTION jobs_announce();

DROP TRIGGER IF EXISTS jobs_announce_update ON jobs;
CREATE TRIGGER jobs_announce_update AFTER UPDATE OF status, run_after, locked_until ON jobs
  FOR EACH ROW WHEN (NEW.status = 'queued' OR (NEW.status = 'running' AND (OLD.status NOT IN ('queued', 'running')
    OR NEW.locked_until IS NULL OR NEW.locked_until <= now() OR NEW.locked_until < OLD.locked_until)))
  EXECUTE FUNCTION jobs_announce();
