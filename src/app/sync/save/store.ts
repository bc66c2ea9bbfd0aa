// This device's unsaved work, kept in IndexedDB so a closed tab, a crash, a network cut or an
// expired session loses nothing. One database per signed-in user, so a shared computer never
// offers one account's changes to another. Each change is one small entry (only the changed
// shapes), never the whole list.
import type { StoredAnnotation } from '../../../contract/annotations';

export interface PendingEntry {
  /** `${tab}:${seq}`: unique across tabs without a round trip to the database. */
  key: string;
  imageId: string;
  projectId: string;
  imageFilename: string;
  /** Local clock (ms) when the change was made; order of entries of one image. */
  at: number;
  /** Estimate of server clock minus local clock (ms) when the change was made. */
  offset: number;
  /** Server version the `before` shapes belong to. */
  baseVersion: number;
  upserts: StoredAnnotation[];
  removed: string[];
  /** The server's shape (null: absent) for every touched id, at baseVersion: the merge base after a crash. */
  before: Record<string, StoredAnnotation | null>;
  /** Kept in this tab only, never written here: the undoing of a recovered save the user discarded. */
  local?: true;
}

export interface PendingStore {
  add(entry: PendingEntry): Promise<void>;
  put(entries: PendingEntry[]): Promise<void>;
  remove(keys: string[]): Promise<void>;
  forImage(imageId: string): Promise<PendingEntry[]>;
  /** Image ids that have pending entries. */
  images(): Promise<string[]>;
  removeImage(imageId: string): Promise<void>;
  close(): void;
}

const STORE = 'entries';

export function databaseName(userId: string): string {
  return `vellum-unsaved-${userId}`;
}

function req<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

const byTime = (a: PendingEntry, b: PendingEntry) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export async function openIndexedDbStore(userId: string, factory: IDBFactory = indexedDB): Promise<PendingStore> {
  const open = factory.open(databaseName(userId), 1);
  open.onupgradeneeded = () => {
    const s = open.result.createObjectStore(STORE, { keyPath: 'key' });
    s.createIndex('imageId', 'imageId');
  };
  const db = await req(open);
  const write = async (fn: (s: IDBObjectStore) => void) => {
    const tx = db.transaction(STORE, 'readwrite');
    fn(tx.objectStore(STORE));
    await done(tx);
  };
  return {
    add: (entry) => write((s) => s.put(entry)),
    put: (entries) => write((s) => entries.forEach((e) => s.put(e))),
    remove: (keys) => write((s) => keys.forEach((k) => s.delete(k))),
    async forImage(imageId) {
      const tx = db.transaction(STORE, 'readonly');
      const all = (await req(tx.objectStore(STORE).index('imageId').getAll(imageId))) as PendingEntry[];
      return all.sort(byTime);
    },
    async images() {
      const tx = db.transaction(STORE, 'readonly');
      const ids = new Set<string>();
      await new Promise<void>((resolve, reject) => {
        const cur = tx.objectStore(STORE).index('imageId').openKeyCursor(null, 'nextunique');
        cur.onsuccess = () => {
          const c = cur.result;
          if (!c) return resolve();
          ids.add(String(c.key));
          c.continue();
        };
        cur.onerror = () => reject(cur.error);
      });
      return [...ids];
    },
    async removeImage(imageId) {
      const tx = db.transaction(STORE, 'readwrite');
      const s = tx.objectStore(STORE);
      const keys = await req(s.index('imageId').getAllKeys(imageId));
      keys.forEach((k) => s.delete(k));
      await done(tx);
    },
    close: () => db.close(),
  };
}

/** Where IndexedDB is unavailable (private modes of some browsers): work is kept for this tab only. */
export function memoryStore(): PendingStore {
  const m = new Map<string, PendingEntry>();
  const clone = <T>(v: T): T => structuredClone(v);
  return {
    add: async (e) => void m.set(e.key, clone(e)),
    put: async (es) => es.forEach((e) => m.set(e.key, clone(e))),
    remove: async (keys) => keys.forEach((k) => m.delete(k)),
    forImage: async (id) => [...m.values()].filter((e) => e.imageId === id).map(clone).sort(byTime),
    images: async () => [...new Set([...m.values()].map((e) => e.imageId))],
    removeImage: async (id) => {
      for (const [k, e] of m) if (e.imageId === id) m.delete(k);
    },
    close: () => undefined,
  };
}
