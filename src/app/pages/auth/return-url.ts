// Where Google sign-in and the e-mail confirmation link bring the browser back to: the page the
// person was on (issue 29: a link opened signed out, an invite link), with its query, so they land
// on it signed in. The authentication page is shown at any path, so that path is the link itself.
// The parameters an earlier authentication round trip left in the URL are not kept.

/** Query parameters that the identity service's redirects add (a PKCE code, an error). */
const AUTH_PARAMS = ['code', 'error', 'error_code', 'error_description'];

/** `search` without the identity service's parameters ('' or '?a=b'). */
export function withoutAuthParams(search: string): string {
  const params = new URLSearchParams(search);
  for (const name of AUTH_PARAMS) params.delete(name);
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function returnUrlAfterAuth(location: Pick<Location, 'origin' | 'pathname' | 'search'>): string {
  const path = `${location.pathname}${withoutAuthParams(location.search)}`;
  return path === '/' ? location.origin : `${location.origin}${path}`;
}
