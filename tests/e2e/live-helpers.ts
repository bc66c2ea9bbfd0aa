// People for the live co-editing tests (issue 20): members of a test project's organization,
// signed up through the auth API and invited by the project's owner, in a browser of their own or
// on a bare live socket of the test process.
import { expect, test, type Browser, type Page } from '@playwright/test';
import WebSocket from 'ws';
import { apiCall, gotoEditorImage, openProjectPage, type EditorProject } from './editor-helpers';
import { apiSignUp, showAllImages, uniqueUser, useSession, type Session } from './helpers';

export interface Member {
  email: string;
  role: 'annotator' | 'viewer';
  fullName: string;
  session: Session;
  /** The project they were brought in for: `memberBrowser` opens it. */
  projectId: string;
}

/** Signs a new person up and makes them a member of the project's organization (invited by `owner`, whose page is signed in). */
export async function member(owner: Page, project: EditorProject, fullName: string, role: 'annotator' | 'viewer' = 'annotator'): Promise<Member> {
  const user = { ...uniqueUser('peer'), fullName };
  const session = await apiSignUp(owner.request, user);
  const invite = await apiCall(owner, 'POST', `/organizations/${project.orgId}/invites`, { email: user.email, role });
  expect(invite.status).toBe(200);
  const token = new URL(invite.body.invite_url as string).pathname.split('/').pop()!;
  const accepted = await owner.request.post(`/api/v1/invites/${token}/accept`, { headers: { authorization: `Bearer ${session.access_token}` } });
  expect(accepted.status()).toBe(200);
  return { email: user.email, role, fullName, session, projectId: project.projectId };
}

/**
 * A browser of the member's own, signed in, on the project's Data tab: an annotator's opens on My
 * work (issue 29); `allImages` turns it off, so every image is on screen. With `image`, the app's
 * first load is straight on that image in the editor instead.
 */
export async function memberBrowser(browser: Browser, who: Member, opts: { allImages?: boolean; image?: { projectId: string; id: string; filename: string } } = {}) {
  const context = await browser.newContext({ baseURL: test.info().project.use.baseURL, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await useSession(page, who.session);
  if (opts.image) {
    await gotoEditorImage(page, opts.image.projectId, opts.image);
    return { context, page };
  }
  await openProjectPage(page, who.projectId);
  if (opts.allImages && who.role === 'annotator') await showAllImages(page);
  return { context, page };
}

/** The member on the image through a live socket of the test process (as an editor there would be); resolves once joined. */
export async function joinedSocket(who: Member, imageId: string, projectId: string): Promise<WebSocket> {
  const socket = new WebSocket(`${String(test.info().project.use.baseURL).replace(/^http/, 'ws')}/api/v1/live`);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'auth', token: who.session.access_token })));
    socket.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { type: string; image_id?: string };
      if (m.type === 'ready') socket.send(JSON.stringify({ type: 'join', image_id: imageId, project_id: projectId }));
      else if (m.type === 'joined' && m.image_id === imageId) resolve();
      else if (m.type === 'error') reject(new Error(`live socket: ${JSON.stringify(m)}`));
    });
  });
  return socket;
}
