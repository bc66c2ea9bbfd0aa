// Account, organization and identity-wrapper calls (spec section 7, "Account and organization").
import { z } from 'zod';
import { MESSAGES, SLUG_MAX, SLUG_MIN } from './validation';
import { storedText } from './text';

export const ROLES = ['owner', 'admin', 'annotator', 'reviewer', 'viewer'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export const Organization = z.object({
  id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  subscription_tier: z.string(),
  gcs_bucket_name: z.string().nullable(),
  user_role: Role,
  created_at: z.string(),
});
export type Organization = z.infer<typeof Organization>;

export const Membership = z.object({
  role: Role,
  organization: Organization.omit({ user_role: true }),
});

export const Profile = z.object({
  id: z.string().uuid(),
  email: z.string(),
  full_name: z.string().nullable(),
  default_organization_id: z.string().uuid().nullable(),
  organization_members: z.array(Membership),
});
export type Profile = z.infer<typeof Profile>;

export const CurrentUserResponse = z.object({
  profile: Profile,
  needs_onboarding: z.boolean(),
  was_reactivated: z.boolean(),
  reactivation_message: z.string().nullable(),
});
export type CurrentUserResponse = z.infer<typeof CurrentUserResponse>;

const trimmed = (message: string, what: string, max = 200) => storedText(z.string({ error: message }).trim().min(1, message).max(max, `Must be at most ${max} characters`), what);

export const Slug = z
  .string({ error: MESSAGES.slugRequired })
  .min(1, MESSAGES.slugRequired)
  .min(SLUG_MIN, MESSAGES.slugShort)
  .max(SLUG_MAX, `Organization slug must be at most ${SLUG_MAX} characters`)
  .regex(/^[a-z0-9-]+$/, MESSAGES.slugChars);

export const UpdateProfileRequest = z
  .object({
    full_name: trimmed(MESSAGES.fullNameRequired, 'Full name').optional(),
    default_organization_id: z.string().uuid().optional(),
  })
  .strict();

export const OnboardingRequest = z.object({
  full_name: trimmed(MESSAGES.fullNameRequired, 'Full name'),
  organization_name: trimmed(MESSAGES.orgNameRequired, 'Organization name'),
  organization_slug: Slug,
});
export type OnboardingRequest = z.infer<typeof OnboardingRequest>;

export const OnboardingResponse = z.object({ success: z.literal(true), organization: Organization, profile: Profile });

export const CreateOrganizationRequest = z.object({ name: trimmed(MESSAGES.orgNameRequired, 'Organization name'), slug: Slug });
export const OrganizationResponse = z.object({ success: z.literal(true), organization: Organization });
export const OrganizationsResponse = z.object({ organizations: z.array(Organization) });

export const FixBucketResponse = z.object({ success: z.boolean(), bucket: z.string(), message: z.string() });
export const DebugResponse = z.object({
  organization_id: z.string(),
  slug: z.string(),
  bucket: z.string().nullable(),
  expected_bucket: z.string(),
  storage_driver: z.enum(['local', 's3']),
  bucket_exists: z.boolean(),
  object_count_sample: z.number(),
  sample_objects: z.array(z.object({ key: z.string(), size: z.number() })),
  problems: z.array(z.string()),
});

export const SignUpRequest = z.object({
  email: storedText(z.string().trim().email(MESSAGES.emailInvalid), 'The e-mail address'),
  password: z.string().min(6, MESSAGES.passwordShort),
  full_name: trimmed(MESSAGES.fullNameRequired, 'Full name'),
});
export const SignInRequest = z.object({ email: storedText(z.string().trim().min(1, MESSAGES.emailRequired), 'The e-mail address'), password: z.string().min(1, MESSAGES.passwordRequired) });
export const VerifyRequest = z.object({ access_token: z.string().min(1) });
