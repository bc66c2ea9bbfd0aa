// The manager's side of the device's store (./store.ts): the store of the signed-in user, opened
// on first use (a tab-only memory store where IndexedDB fails), writes run one after another in
// call order, and a change of account closes the previous user's store (its work stays there).
import { memoryStore, type PendingEntry, type PendingStore } from './store';
import type { SaveDeps } from './types';

export interface DeviceStore {
  /** The signed-in user's store. */
  open(): Promise<PendingStore>;
  /** A write, after every earlier one (an entry is never deleted before it was added); failures are logged. */
  op(fn: (s: PendingStore) => Promise<unknown>): Promise<void>;
  /** The store follows a save or a merge: entries that left are removed, the rest rewritten on the new base (tab-only entries are never written). */
  persist(removed: string[], rebased: PendingEntry[]): void;
  /** The image's stored entries, after the writes queued so far ([] when they cannot be read). */
  forImage(imageId: string): Promise<PendingEntry[]>;
  /** Resolves when the writes queued so far are done. */
  settled(): Promise<unknown>;
  /** Who is signed in now; when another account than before, `onSwitch` runs and the previous store is closed. */
  follow(onSwitch: () => void): Promise<void>;
  /** The user the store belongs to (null until known). */
  readonly user: string | null;
  close(): void;
}

export function deviceStore(deps: Pick<SaveDeps, 'currentUser' | 'openStore' | 'log'>): DeviceStore {
  let storePromise: Promise<PendingStore> | null = null;
  let activeUser: string | null = null;
  const open = (): Promise<PendingStore> =>
    (storePromise ??= (activeUser === null ? deps.currentUser().then((u) => ((activeUser = u), u)) : Promise.resolve(activeUser)).then(deps.openStore).catch((err: unknown) => {
      deps.log('Unsaved changes cannot be kept in IndexedDB; they are kept for this tab only.', err);
      return memoryStore();
    }));
  let chain: Promise<unknown> = Promise.resolve();
  const op = (fn: (s: PendingStore) => Promise<unknown>): Promise<void> => {
    const next = chain.then(async () => fn(await open())).catch((err: unknown) => deps.log('Could not update the unsaved changes kept on this device', err));
    chain = next;
    return next.then(() => undefined);
  };

  return {
    open,
    op,
    persist(removed, rebased) {
      const kept = rebased.filter((e) => !e.local);
      if (!removed.length && !kept.length) return;
      void op(async (st) => {
        if (removed.length) await st.remove(removed);
        if (kept.length) await st.put(kept);
      });
    },
    async forImage(imageId) {
      await chain;
      try {
        return await (await open()).forImage(imageId);
      } catch (err) {
        deps.log('Could not read the unsaved changes kept on this device', err);
        return [];
      }
    },
    settled: () => chain,
    /** Another account on this device: the previous one's work stays in its own store (never sent with the new account's token) for its return. */
    async follow(onSwitch) {
      const user = await deps.currentUser().catch(() => activeUser ?? 'signed-out');
      if (activeUser !== null && user !== activeUser) {
        const previous = storePromise;
        storePromise = null;
        chain = chain.then(() => previous?.then((st) => st.close()));
        onSwitch();
      }
      activeUser = user;
    },
    get user() {
      return activeUser;
    },
    close() {
      void storePromise?.then((st) => st.close());
    },
  };
}
