-- An import can be cancelled while queued or running (issue 30): POST /api/v1/imports/{id}/cancel.
-- What it added stays; its status becomes 'cancelled'.
ALTER TABLE imports DROP CONSTRAINT IF EXISTS imports_status_check;
ALTER TABLE imports ADD CONSTRAINT imports_status_check CHECK (status IN ('uploading', 'queued', 'running', 'done', 'failed', 'cancelled'));
