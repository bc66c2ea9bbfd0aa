// The editor's saving pipeline that never loses work (issue 5 "Loading and saving"). The screen
// calls open / change / close; see ./types.ts for the contract and ./manager.ts for the rules.
import { getSupabase, onSessionRenewed } from '../../api/supabase';
import { createManager } from './manager';
import { memoryStore, openIndexedDbStore } from './store';
import { createHttpTransport } from './transport';
import type { SaveDeps, SaveManager } from './types';

export type { AbsorbedChange, Delta, ImageRef, MergeResult, Recovery, RemoteChange, RemoteOutcome, SaveDeps, SaveManager, SaveState, SaveStatus } from './types';
export type { SaveBody, SaveOutcome, SaveTransport } from './transport';
export type { PendingEntry, PendingStore } from './store';
export { merge3, applyDelta, sameJson } from './merge';
export { EditorSaveLink, GATHER_MS, type Overlap } from './link';

/** Spec section 9: save debounce 2000 ms, max retries 5, base retry 1000 ms, max retry delay 30000 ms. */
export const SAVE_DEBOUNCE_MS = 2000;
export const SAVE_MAX_RETRIES = 5;
export const SAVE_BASE_RETRY_MS = 1000;
export const SAVE_MAX_RETRY_MS = 30_000;

async function currentUserId(): Promise<string> {
  const { data } = await (await getSupabase()).auth.getSession();
  return data.session?.user.id ?? 'signed-out';
}

/** Each tab holds a Web Lock named after its id while it is open: the others see it in `navigator.locks.query()`. */
const TAB_LOCK_PREFIX = 'vellum-save-tab:';

/** Holds this tab's lock for the tab's life; the open tabs' ids, or null without Web Locks. */
function tabLocks(tabId: string): () => Promise<ReadonlySet<string> | null> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return async () => null;
  try {
    void locks.request(TAB_LOCK_PREFIX + tabId, () => new Promise<never>(() => undefined)).catch(() => undefined);
  } catch {
    return async () => null; // a document not fully active: no lock, so no tab is known
  }
  return async () => {
    const { held = [] } = await locks.query();
    return new Set(held.map((l) => l.name ?? '').filter((n) => n.startsWith(TAB_LOCK_PREFIX)).map((n) => n.slice(TAB_LOCK_PREFIX.length)));
  };
}

function defaultDeps(): SaveDeps {
  const tabId = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID().slice(0, 8) : Math.random().toString(36).slice(2, 10);
  return {
    transport: createHttpTransport(),
    // Per signed-in user, so a shared computer never mixes accounts' unsaved work.
    openStore: async (userId) => (typeof indexedDB === 'undefined' ? memoryStore() : openIndexedDbStore(userId)),
    currentUser: currentUserId,
    now: () => Date.now(),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    onOnline: (cb) => {
      if (typeof window === 'undefined') return () => undefined;
      window.addEventListener('online', cb);
      return () => window.removeEventListener('online', cb);
    },
    onAuthChange: onSessionRenewed,
    tabId,
    liveTabs: tabLocks(tabId),
    debounceMs: SAVE_DEBOUNCE_MS,
    maxRetries: SAVE_MAX_RETRIES,
    baseRetryMs: SAVE_BASE_RETRY_MS,
    maxRetryMs: SAVE_MAX_RETRY_MS,
    // Spec section 8: save failures are only logged ('Auto-save failed:').
    log: (message, err) => (message.startsWith('Auto-save failed') ? console.error(message, err) : console.warn(message, err)),
  };
}

/** Real transport (save-changes through the session's token) and IndexedDB by default; tests inject fakes and a clock. */
export function createSaveManager(deps: Partial<SaveDeps> = {}): SaveManager {
  return createManager({ ...defaultDeps(), ...deps });
}

let shared: SaveManager | null = null;
let watchingSignOut = false;
/** The one manager of the app: it outlives the editor screen, so work pending when the user leaves is still saved. */
export function getSaveManager(): SaveManager {
  if (!watchingSignOut) {
    watchingSignOut = true;
    // Each user has their own device store: after a sign-out the next account starts a fresh
    // manager. What the previous one still held stays in its store until that user returns.
    void getSupabase()
      .then((sb) =>
        sb.auth.onAuthStateChange((event) => {
          if (event !== 'SIGNED_OUT' || !shared) return;
          const old = shared;
          shared = null;
          setTimeout(() => old.dispose(), 0);
        }),
      )
      .catch(() => undefined);
  }
  return (shared ??= createSaveManager());
}
