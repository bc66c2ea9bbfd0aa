// Teams (issue 6): members and roles, invites, server-side API keys, account deletion.
import { z } from 'zod';
import { Organization, Role } from './account';
import { storedText } from './text';

export const ROLE_RANK: Record<Role, number> = { viewer: 1, annotator: 2, reviewer: 3, admin: 4, owner: 5 };
/** May `a` be given by someone whose role is `b`? (role ceilings for invites and API keys) */
export const roleAtMost = (a: Role, b: Role) => ROLE_RANK[a] <= ROLE_RANK[b];

export const INVITE_TTL_DAYS = 7;
export const ACCOUNT_GRACE_DAYS = 30;
export const API_KEY_NAME_REQUIRED = 'Please enter a name for the API key';

const uuid = (what: string) => z.string().uuid(`${what} must be a UUID`);
export const OrgParams = z.object({ orgId: uuid('Organization id') });
export const MemberParams = z.object({ orgId: uuid('Organization id'), userId: uuid('User id') });
export const InviteIdParams = z.object({ orgId: uuid('Organization id'), inviteId: uuid('Invite id') });
export const InviteTokenParams = z.object({ token: z.string().min(16, 'Invalid invite link').max(128, 'Invalid invite link').regex(/^[A-Za-z0-9_-]+$/, 'Invalid invite link') });
export const ApiKeyParams = z.object({ id: uuid('API key id') });

// --- members

export const Member = z.object({
  user_id: z.string().uuid(),
  email: z.string(),
  full_name: z.string().nullable(),
  role: Role,
  joined_at: z.string(),
  is_you: z.boolean(),
});
export type Member = z.infer<typeof Member>;
export const MembersResponse = z.object({ members: z.array(Member) });
export const UpdateMemberRequest = z.object({ role: Role }).strict();
export const MemberResponse = z.object({ success: z.literal(true), member: Member });
export const RemoveMemberResponse = z.object({ success: z.literal(true) });

// --- invites

export const InviteStatus = z.enum(['pending', 'accepted', 'expired', 'revoked']);
export const Invite = z.object({
  id: z.string().uuid(),
  organization_id: z.string().uuid(),
  email: z.string(),
  role: Role,
  status: InviteStatus,
  expires_at: z.string(),
  created_at: z.string(),
  invited_by: z.string().nullable(),
});
export type Invite = z.infer<typeof Invite>;
export const InvitesResponse = z.object({ invites: z.array(Invite) });
export const CreateInviteRequest = z
  .object({
    email: storedText(z.string({ error: 'Please enter an email address' }).trim().toLowerCase().min(1, 'Please enter an email address').max(255).email('Please enter a valid email address'), 'The e-mail address'),
    role: Role,
  })
  .strict();
export const CreateInviteResponse = z.object({
  success: z.literal(true),
  invite: Invite,
  /** The link to send; it holds the invite's secret and is shown only now. */
  invite_url: z.string(),
  email_sent: z.boolean(),
});
export const InvitePreviewResponse = z.object({
  organization_name: z.string(),
  role: Role,
  email: z.string(),
  status: InviteStatus,
  expires_at: z.string(),
  invited_by: z.string().nullable(),
  /** Whether the signed-in caller's address is the invited one. */
  for_you: z.boolean(),
  already_member: z.boolean(),
});
export const AcceptInviteResponse = z.object({ success: z.literal(true), organization: Organization });

// --- API keys

export const ApiKey = z.object({
  id: z.string().uuid(),
  name: z.string(),
  prefix: z.string(),
  role: Role,
  organization_id: z.string().uuid(),
  created_by: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;
export const ApiKeysQuery = z.object({ organization_id: uuid('organization_id') });
export const ApiKeysResponse = z.object({ api_keys: z.array(ApiKey) });
export const CreateApiKeyRequest = z
  .object({
    organization_id: uuid('organization_id'),
    name: storedText(z.string({ error: API_KEY_NAME_REQUIRED }).trim().min(1, API_KEY_NAME_REQUIRED).max(100, 'Must be at most 100 characters'), 'API key name'),
    /** Defaults to the creator's role; never above it. */
    role: Role.optional(),
  })
  .strict();
export const CreateApiKeyResponse = z.object({
  success: z.literal(true),
  api_key: ApiKey,
  /** The key itself: shown once, stored by the server only as a hash. */
  key: z.string(),
});
export const DeleteApiKeyResponse = z.object({ success: z.literal(true) });

// --- account deletion (spec section 3, "Account delete response")

export const FinalBilling = z.object({
  organization_id: z.string(),
  organization_name: z.string(),
  /** What happens to the organization: deleted with the account, or kept by its other members. */
  outcome: z.enum(['scheduled_for_deletion', 'ownership_transferred', 'left']),
  new_owner_email: z.string().nullable(),
  annotations_total: z.number(),
  annotations_by_type: z.record(z.string(), z.number()),
  storage_bytes: z.number(),
  image_count: z.number(),
  project_count: z.number(),
});
export const DeleteAccountResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  organizations_processed: z.number(),
  final_billing: z.array(FinalBilling),
  /** Signing in before this instant reactivates the account; after it everything is purged. */
  purge_after: z.string(),
});
export const ClearReactivationResponse = z.object({ success: z.literal(true) });
