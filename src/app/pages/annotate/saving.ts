// The editor's one save manager (it outlives the screen, so work left pending when the user goes
// back to the project page is still saved). The pipeline itself lives in ./save.
// TEMPORARY minimal saver until ./save lands: debounced save-data, nothing kept on the device.
import type { StoredAnnotation } from '../../../contract/annotations';
import { SaveDataResponse } from '../../../contract/annotation-api';
import { request } from '../../api/client';

export interface ImageRef {
  imageId: string;
  projectId: string;
  imageFilename: string;
}
export type SaveState = 'saved' | 'pending' | 'saving' | 'offline' | 'needs-sign-in' | 'conflict-merged' | 'error';
export interface SaveStatus {
  state: SaveState;
  label: string;
  detail?: string;
  unsavedImages: number;
}
export interface Delta {
  upserts: StoredAnnotation[];
  removed: string[];
}
export interface Recovery {
  annotations: StoredAnnotation[];
  changes: number;
  savedAt: number;
}
export interface MergeResult {
  annotations: StoredAnnotation[];
  version: number;
  conflicts: string[];
}
export interface SaveManager {
  open(ref: ImageRef, loaded: { annotations: StoredAnnotation[]; version: number }): Promise<Recovery | null>;
  change(imageId: string, delta: Delta, snapshot: () => StoredAnnotation[], opts?: { immediate?: boolean }): void;
  close(imageId: string): void;
  flush(): Promise<void>;
  flushOnPageHide(): void;
  discard(imageId: string): Promise<void>;
  status(): SaveStatus;
  subscribe(listener: (s: SaveStatus) => void): () => void;
  onMerged(listener: (imageId: string, merge: MergeResult) => void): () => void;
  onSaved(listener: (imageId: string, res: SaveDataResponse) => void): () => void;
  dispose(): void;
}

function createBasicSaver(): SaveManager {
  const refs = new Map<string, ImageRef>();
  const pending = new Map<string, { snapshot: () => StoredAnnotation[]; timer: ReturnType<typeof setTimeout> | null }>();
  const listeners = new Set<(s: SaveStatus) => void>();
  const saved = new Set<(id: string, r: SaveDataResponse) => void>();
  let state: SaveStatus = { state: 'saved', label: 'Saved', unsavedImages: 0 };
  const set = (s: SaveState, label: string) => {
    state = { state: s, label, unsavedImages: pending.size };
    for (const l of listeners) l(state);
  };
  const save = async (imageId: string) => {
    const p = pending.get(imageId);
    const ref = refs.get(imageId);
    if (!p || !ref) return;
    pending.delete(imageId);
    if (p.timer) clearTimeout(p.timer);
    set('saving', 'Saving...');
    try {
      const res = await request('POST', '/annotations/save-data', SaveDataResponse, {
        image_id: ref.imageId,
        project_id: ref.projectId,
        image_filename: ref.imageFilename,
        annotations: p.snapshot(),
      });
      for (const l of saved) l(imageId, res);
      set(pending.size ? 'pending' : 'saved', pending.size ? 'Unsaved changes' : 'Saved');
    } catch (err) {
      console.error('Auto-save failed:', err);
      set('error', 'Save failed');
    }
  };
  return {
    async open(ref) {
      refs.set(ref.imageId, ref);
      return null;
    },
    change(imageId, _delta, snapshot, opts) {
      const old = pending.get(imageId);
      if (old?.timer) clearTimeout(old.timer);
      const entry = { snapshot, timer: null as ReturnType<typeof setTimeout> | null };
      pending.set(imageId, entry);
      set('pending', 'Unsaved changes');
      if (opts?.immediate) void save(imageId);
      else entry.timer = setTimeout(() => void save(imageId), 2000);
    },
    close(imageId) {
      const p = pending.get(imageId);
      if (p) {
        const list = p.snapshot();
        p.snapshot = () => list;
        void save(imageId);
      }
    },
    async flush() {
      await Promise.all([...pending.keys()].map(save));
    },
    flushOnPageHide() {
      void this.flush();
    },
    async discard(imageId) {
      pending.delete(imageId);
    },
    status: () => state,
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    onMerged: () => () => undefined,
    onSaved(l) {
      saved.add(l);
      return () => saved.delete(l);
    },
    dispose() {},
  };
}

let manager: SaveManager | null = null;
export function getSaveManager(): SaveManager {
  return (manager ??= createBasicSaver());
}
