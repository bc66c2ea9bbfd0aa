// Where Google sign-in and the e-mail confirmation link bring the browser back to: the app's
// origin, keeping an invite link (/invite/<token>) so the invited person lands on it signed in.
export function returnUrlAfterAuth(location: Pick<Location, 'origin' | 'pathname'>): string {
  return /^\/invite\/[^/]+$/.test(location.pathname) ? `${location.origin}${location.pathname}` : location.origin;
}
