-- Vellum initial schema. Applied once, in a transaction, by src/server/db/migrate.ts.
-- Identity (embedded GoTrue-compatible service)
CREATE TABLE auth_users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  encrypted_password text,
  email_confirmed_at timestamptz,
  confirmation_token text,
  confirmation_sent_at timestamptz,
  email_change text,
  email_change_token text,
  email_change_sent_at timestamptz,
  raw_user_meta_data jsonb NOT NULL DEFAULT '{}'::jsonb,
  raw_app_meta_data jsonb NOT NULL DEFAULT '{}'::jsonb,
  last_sign_in_at timestamptz,
  banned_until timestamptz,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- A deleted account frees its address for a new sign-up.
CREATE UNIQUE INDEX auth_users_email_key ON auth_users (lower(email)) WHERE deleted_at IS NULL;
CREATE INDEX auth_users_confirmation_token_idx ON auth_users (confirmation_token) WHERE confirmation_token IS NOT NULL;
CREATE INDEX auth_users_email_change_token_idx ON auth_users (email_change_token) WHERE email_change_token IS NOT NULL;

CREATE TABLE auth_identities (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES auth_users(id) ON DELETE CASCADE,
  provider text NOT NULL,
  provider_id text NOT NULL,
  identity_data jsonb NOT NULL DEFAULT '{}'::jsonb,
  last_sign_in_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, provider_id)
);
CREATE INDEX auth_identities_user_idx ON auth_identities (user_id);

CREATE TABLE auth_sessions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES auth_users(id) ON DELETE CASCADE,
  aal text NOT NULL DEFAULT 'aal1',
  amr jsonb NOT NULL DEFAULT '[]'::jsonb,
  user_agent text,
  ip text,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_sessions_user_idx ON auth_sessions (user_id);

CREATE TABLE auth_refresh_tokens (
  id bigserial PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  session_id uuid NOT NULL REFERENCES auth_sessions(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES auth_users(id) ON DELETE CASCADE,
  revoked boolean NOT NULL DEFAULT false,
  parent_id bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_refresh_tokens_session_idx ON auth_refresh_tokens (session_id);

-- PKCE flow state for OAuth (Google) sign-in.
CREATE TABLE auth_flow_states (
  id uuid PRIMARY KEY,
  provider text NOT NULL,
  code_challenge text NOT NULL,
  code_challenge_method text NOT NULL,
  redirect_to text NOT NULL,
  oidc_nonce text NOT NULL,
  oidc_code_verifier text NOT NULL,
  auth_code text UNIQUE,
  auth_code_issued_at timestamptz,
  user_id uuid REFERENCES auth_users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Product
CREATE TABLE profiles (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  full_name text,
  default_organization_id uuid,
  deactivated_at timestamptz,
  reactivated_at timestamptz,
  reactivation_message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  subscription_tier text NOT NULL DEFAULT 'free',
  gcs_bucket_name text,
  created_by uuid,
  deletion_scheduled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organization_members (
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'annotator', 'reviewer', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_user_idx ON organization_members (user_id);

CREATE TABLE projects (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  gcs_path text NOT NULL,
  classes jsonb NOT NULL DEFAULT '[]'::jsonb,
  annotation_types jsonb NOT NULL DEFAULT '["box"]'::jsonb,
  created_by uuid,
  image_count integer NOT NULL DEFAULT 0,
  completed_image_count integer NOT NULL DEFAULT 0,
  annotation_count integer NOT NULL DEFAULT 0,
  total_size bigint NOT NULL DEFAULT 0,
  archived_images integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_org_created_idx ON projects (organization_id, created_at DESC);

-- Virtual folders: a path tree per project ('/' is the root and has no row).
CREATE TABLE folders (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name text NOT NULL,
  full_path text NOT NULL,
  parent_folder_path text NOT NULL,
  parent_folder_id uuid REFERENCES folders(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, full_path)
);
CREATE INDEX folders_parent_idx ON folders (project_id, parent_folder_path);

CREATE TABLE images (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  filename text NOT NULL,
  gcs_uri text NOT NULL,
  gcs_path text NOT NULL,
  thumbnail_path text,
  status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'annotating', 'complete')),
  virtual_folder_path text NOT NULL DEFAULT '/',
  file_size bigint NOT NULL DEFAULT 0,
  mime_type text NOT NULL,
  image_width integer,
  image_height integer,
  annotation_count integer NOT NULL DEFAULT 0,
  is_archived boolean NOT NULL DEFAULT false,
  is_edited boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, filename)
);
-- The list query: one folder of one project, archived or not, newest first (and its keyset tie-breaker).
CREATE INDEX images_folder_created_idx ON images (project_id, is_archived, virtual_folder_path, created_at DESC, id);
CREATE INDEX images_folder_status_idx ON images (project_id, is_archived, virtual_folder_path, status, created_at DESC);
CREATE INDEX images_project_created_idx ON images (project_id, is_archived, created_at DESC);
CREATE INDEX images_folder_filename_idx ON images (project_id, is_archived, virtual_folder_path, filename);

-- One annotation document per image, versioned for conflict-free saving.
CREATE TABLE annotation_documents (
  image_id uuid PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  annotations jsonb NOT NULL DEFAULT '[]'::jsonb,
  version integer NOT NULL DEFAULT 0,
  updated_by uuid,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX annotation_documents_project_idx ON annotation_documents (project_id);

CREATE TABLE usage_records (
  id bigserial PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id uuid,
  image_id uuid,
  annotation_type text NOT NULL,
  annotation_count integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_records_org_idx ON usage_records (organization_id, created_at);

-- Background jobs, claimed with FOR UPDATE SKIP LOCKED so several processes can share them.
CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  kind text NOT NULL,
  organization_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  progress integer NOT NULL DEFAULT 0,
  result jsonb,
  error text,
  attempts integer NOT NULL DEFAULT 0,
  run_after timestamptz NOT NULL DEFAULT now(),
  locked_by text,
  locked_until timestamptz,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_claim_idx ON jobs (status, run_after) WHERE status IN ('queued', 'running');
