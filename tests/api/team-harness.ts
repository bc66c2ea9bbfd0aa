// Teams for API tests: an owner's organization with members of the given roles, joined through
// real invites (the way people join).
import { api, onboardedUser, signUp, type TestServer } from './harness';
import type { Role } from '../../src/contract/account';

export type Session = Awaited<ReturnType<typeof signUp>>;

export async function invite(server: TestServer, ownerToken: string, orgId: string, email: string, role: Role): Promise<string> {
  const res = await api(server.url, 'POST', `/api/v1/organizations/${orgId}/invites`, { token: ownerToken, body: { email, role } });
  if (res.status !== 200) throw new Error(`invite failed: ${res.status} ${JSON.stringify(res.body)}`);
  return String(res.body.invite_url).split('/invite/')[1];
}

/** Signs a new user up and joins them to the organization with `role`. */
export async function joinAs(server: TestServer, ownerToken: string, orgId: string, role: Role): Promise<Session> {
  const user = await signUp(server);
  const token = await invite(server, ownerToken, orgId, user.email, role);
  const res = await api(server.url, 'POST', `/api/v1/invites/${token}/accept`, { token: user.token });
  if (res.status !== 200) throw new Error(`accept failed: ${res.status} ${JSON.stringify(res.body)}`);
  return user;
}

/** An organization with one member per role (the owner made it). */
export async function teamOf(server: TestServer) {
  const owner = await onboardedUser(server);
  // One after the other, so that joining order (the member list's order) is the roles' order.
  const admin = await joinAs(server, owner.token, owner.org.id, 'admin');
  const reviewer = await joinAs(server, owner.token, owner.org.id, 'reviewer');
  const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
  const viewer = await joinAs(server, owner.token, owner.org.id, 'viewer');
  return { org: owner.org, owner, admin, reviewer, annotator, viewer, byRole: { owner, admin, reviewer, annotator, viewer } as Record<Role, Session> };
}

export async function signIn(server: TestServer, email: string, password: string): Promise<string> {
  const res = await api(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email, password }, headers: { apikey: server.built.ctx.auth.anonKey } });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}
