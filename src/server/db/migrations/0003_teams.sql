-- Teams (issue 6): invites, server-side API keys, and the account deletion schedule.

-- A profile is a person ('user') or the principal of an API key ('api_key'): a key acts through
-- its own membership row, so every access check (membership, role, organization) applies to it
-- unchanged. Key principals never sign in and never appear as members.
ALTER TABLE profiles ADD COLUMN kind text NOT NULL DEFAULT 'user' CHECK (kind IN ('user', 'api_key'));

CREATE TABLE organization_invites (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'annotator', 'reviewer', 'viewer')),
  -- SHA-256 of the link's secret; the secret itself is shown once to the inviter.
  token_hash text NOT NULL UNIQUE,
  invited_by uuid REFERENCES profiles(id) ON DELETE SET NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES profiles(id) ON DELETE SET NULL,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX organization_invites_org_idx ON organization_invites (organization_id, created_at DESC);

CREATE TABLE api_keys (
  -- Also the id of the key's principal profile (kind 'api_key') and of its membership.
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  created_by uuid NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
  name text NOT NULL,
  -- The first characters of the key ('vlm_' + 8), to recognise it in lists.
  prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'annotator', 'reviewer', 'viewer')),
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_org_idx ON api_keys (organization_id, created_at DESC);
CREATE INDEX api_keys_creator_idx ON api_keys (created_by);

-- DELETE /users/me: what was deactivated and scheduled, until reactivation or the purge.
CREATE TABLE account_deletions (
  user_id uuid PRIMARY KEY REFERENCES profiles(id) ON DELETE CASCADE,
  requested_at timestamptz NOT NULL,
  purge_after timestamptz NOT NULL,
  -- Organizations where the user was the only member: deleted with the account.
  organization_ids jsonb NOT NULL DEFAULT '[]',
  final_billing jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX account_deletions_purge_idx ON account_deletions (purge_after);
