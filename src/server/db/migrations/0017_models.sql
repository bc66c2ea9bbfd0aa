-- Models (issue 34): an organization's own models for pre-labelling. The built-in ones are not rows
-- (they ship with the code). An 'onnx' model is 'pending' until its uploaded file (staging_key)
-- is checked and activated; its kind, classes and input size then come from the file's metadata.
-- An 'http' model is 'ready' at once: its endpoint (url) and request headers (which may hold a
-- secret and are never answered back).
CREATE TABLE models (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  created_by uuid,
  name text NOT NULL,
  source text NOT NULL CHECK (source IN ('onnx', 'http')),
  kind text NOT NULL CHECK (kind IN ('detect', 'segment', 'pose')),
  status text NOT NULL DEFAULT 'ready' CHECK (status IN ('pending', 'ready')),
  classes jsonb NOT NULL DEFAULT '[]'::jsonb,
  input_size integer,
  filename text,
  size bigint,
  staging_key text,
  object_key text,
  url text,
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX models_organization_idx ON models (organization_id, created_at);
