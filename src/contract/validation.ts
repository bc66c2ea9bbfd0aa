// Validation rules and their exact messages (spec section 5), shared by the SPA and the server
// so both say the same thing.
export const MESSAGES = {
  emailRequired: 'Please enter your email address',
  emailInvalid: 'Please enter a valid email address',
  passwordRequired: 'Please enter your password',
  passwordShort: 'Password must be at least 6 characters long',
  fullNameRequired: 'Please enter your full name',
  orgNameRequired: 'Please enter your organization name',
  slugRequired: 'Organization slug is required',
  slugShort: 'Organization slug must be at least 3 characters',
  slugChars: 'Organization slug can only contain lowercase letters, numbers, and hyphens',
  slugTaken: 'This organization identifier is already taken. Please choose another one.',
  projectNameRequired: 'Project name is required',
} as const;

export const PASSWORD_MIN = 6;
export const SLUG_MIN = 3;
export const SLUG_MAX = 48;
export const BUCKET_PREFIX = 'vellum-';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function validateEmail(email: string): string | null {
  if (!email.trim()) return MESSAGES.emailRequired;
  if (!EMAIL_RE.test(email.trim())) return MESSAGES.emailInvalid;
  return null;
}

export function validatePassword(password: string, forSignUp: boolean): string | null {
  if (!password) return MESSAGES.passwordRequired;
  if (forSignUp && password.length < PASSWORD_MIN) return MESSAGES.passwordShort;
  return null;
}

export function validateSlug(slug: string): string | null {
  if (!slug) return MESSAGES.slugRequired;
  if (slug.length < SLUG_MIN) return MESSAGES.slugShort;
  if (!/^[a-z0-9-]+$/.test(slug)) return MESSAGES.slugChars;
  if (slug.length > SLUG_MAX) return `Organization slug must be at most ${SLUG_MAX} characters`;
  return null;
}

/** Derives a slug from an organization name: lowercased, other characters removed, spaces to hyphens, repeated hyphens collapsed. */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-');
}

export function bucketNameFor(slug: string): string {
  return `${BUCKET_PREFIX}${slug}`;
}
