-- A person's own preferences (issue 37): the editor's single-key shortcuts, on or off and the
-- tools' keys (src/contract/preferences.ts). Kept with the profile so they follow the person to
-- every device; '{}' reads as the defaults.
ALTER TABLE profiles ADD COLUMN IF NOT EXISTS preferences jsonb NOT NULL DEFAULT '{}'::jsonb;
