// A team for the workflow tests (issue 29): an owner with a project, and members of each role
// joined through invites.
import { api, onboardedUser, signUp, type TestServer } from './harness';
import { invite } from './team-harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';
import type { Role } from '../../src/contract/account';

export interface Person {
  token: string;
  userId: string;
  email: string;
}

/** joinAs (./team-harness.ts) with a name of one's own: the workflow answers name people. */
export async function join(server: TestServer, owner: { token: string; org: { id: string } }, role: Role, fullName?: string): Promise<Person> {
  const user = await signUp(server, { fullName });
  const acc = await api(server.url, 'POST', `/api/v1/invites/${await invite(server, owner.token, owner.org.id, user.email, role)}/accept`, { token: user.token });
  if (acc.status !== 200) throw new Error(`accept: ${acc.status} ${JSON.stringify(acc.body)}`);
  return user;
}

export async function team(server: TestServer) {
  const owner = await onboardedUser(server);
  const project = await createProject(server, owner);
  const members = {
    admin: await join(server, owner, 'admin', 'Ada Admin'),
    annotator: await join(server, owner, 'annotator', 'Ann Otator'),
    annotator2: await join(server, owner, 'annotator', 'Bea Second'),
    reviewer: await join(server, owner, 'reviewer', 'Rex Viewer'),
    viewer: await join(server, owner, 'viewer', 'Vic Looker'),
  };
  const bytes = await png(40, 30);
  let n = 0;
  const newImage = async (folder?: string) => {
    n += 1;
    return uploadImage(server, owner, project.id, `wf-${Date.now().toString(36)}-${n}.png`, bytes, folder ? { folder } : {});
  };
  const call = <T = any>(who: { token: string }, method: string, path: string, body?: unknown) => api<T>(server.url, method, path, { token: who.token, body });
  return { owner, project, ...members, newImage, call };
}
