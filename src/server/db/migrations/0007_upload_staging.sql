-- One-shot uploads (issue 15): an upload URL writes a staging object of its own, never the image's
-- key. The reservation remembers which staging object its URL writes, so register reads exactly
-- that one, checks it, and copies the checked bytes to the image's key.
ALTER TABLE upload_reservations ADD COLUMN staging_key text;
