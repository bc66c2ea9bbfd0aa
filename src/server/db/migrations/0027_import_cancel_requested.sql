-- Cancelling a running import only asks it to stop: the worker finishes the images it has in
-- flight, writes its final report and then sets status 'cancelled', so the report a person reads
-- once the import has ended is what it added. Until then the status stays 'running' and this
-- column says a stop was asked for (GET answers cancel_requested: true). A queued import, with
-- nothing in flight, is cancelled at once and records the time here too.
ALTER TABLE imports ADD COLUMN IF NOT EXISTS cancel_requested_at timestamptz;
