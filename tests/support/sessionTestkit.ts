// For the editor session's tests (src/app/editor-session/*.test.ts): a session joined as the
// screen makes it, with the real engine and save link, the save manager given (saveTestkit's
// harness) on a fake clock, a stand-in live client, an annotator's role and an Auto-Annotate server that has no masks;
// and browser storage in memory (a test file sets `window` itself, so vitest.config.ts sees that it
// changes a global and isolates it).
import type { Role } from '../../src/contract/account';
import type { RoleSource } from '../../src/app/editor-session/access';
import type { LiveClient } from '../../src/app/sync/live';
import type { SaveManager } from '../../src/app/sync/save';
import { EditorSession, type EditorSessionOptions } from '../../src/app/editor-session/session';
import type { FakeClock } from './saveTestkit';

export const PROJECT = '00000000-0000-4000-8000-0000000000aa';

/** The live client as far as the session uses it without a socket. */
export const liveStandIn = { userId: 'user-1', onPeerOverlap: () => () => undefined, sendOverlap: () => undefined } as unknown as LiveClient;

/** The member's role as the session follows it, changed by the test (`set`: a role changed elsewhere). */
export function roleHolder(initial: Role | null): RoleSource & { set(role: Role | null): void } {
  let role = initial;
  const listeners = new Set<() => void>();
  return {
    role: () => role,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(next) {
      role = next;
      for (const l of [...listeners]) l();
    },
  };
}

/** localStorage in memory: `window = { localStorage: new MemoryStorage() }`. */
export class MemoryStorage {
  private m = new Map<string, string>();
  getItem = (k: string) => this.m.get(k) ?? null;
  setItem = (k: string, v: string) => void this.m.set(k, v);
  removeItem = (k: string) => void this.m.delete(k);
}

/** A session on `manager` and `clock` (not started); `over` replaces any option (tell, usage records, the annotations API...). */
export function testSession(clock: FakeClock, manager: SaveManager, over: Partial<EditorSessionOptions> = {}): EditorSession {
  return new EditorSession({
    projectId: PROJECT,
    orgId: 'org-1',
    role: roleHolder('annotator'),
    saver: manager,
    live: liveStandIn,
    segmentation: { warmup: async () => ({}), health: async () => ({ status: 'healthy' }), process: async () => ({}), mask: async () => Promise.reject(new Error('no masks here')) },
    tell: () => undefined,
    recordCreated: async () => undefined,
    timers: { setTimer: clock.setTimer, clearTimer: clock.clearTimer },
    ...over,
  });
}
