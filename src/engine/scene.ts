// Scene diffs for a renderer (e.g. the render worker): instead of re-reading 100k shapes after
// each change, a renderer pulls what changed since its last pull: shapes to (re)build with
// their paint-order key, and ids to drop. View state (hidden, selected, hover, transparency)
// stays separate: it is small and changes without touching geometry.
import type { Editor } from './editor';
import type { EditorAnnotation } from './model/types';

export interface SceneItem {
  readonly id: string;
  /** Paint order: draw by increasing z. */
  readonly z: number;
  readonly annotation: EditorAnnotation;
}

export interface SceneDiff {
  /** True: drop everything first (load, replace-all); `upserts` then holds the whole scene. */
  readonly reset: boolean;
  readonly upserts: readonly SceneItem[];
  readonly removed: readonly string[];
}

export class SceneTracker {
  private reset = true;
  private readonly dirty = new Set<string>();
  /** What the renderer has, by identity: annotations are immutable, so same object = same shape. */
  private readonly sent = new Map<string, EditorAnnotation>();
  private readonly unsubscribe: () => void;

  constructor(private readonly editor: Editor) {
    this.unsubscribe = editor.subscribe((c) => {
      if (!c.document) return;
      if (c.document.all) {
        this.reset = true;
        this.dirty.clear();
      } else if (!this.reset) {
        for (const id of c.document.ids) this.dirty.add(id);
      }
    });
  }

  /** Everything that changed since the previous call (the first call returns the whole scene). */
  pull(): SceneDiff {
    const e = this.editor;
    if (this.reset) {
      this.reset = false;
      this.dirty.clear();
      this.sent.clear();
      const upserts: SceneItem[] = [];
      for (const id of e.getOrderedIds()) {
        const annotation = e.getAnnotation(id)!;
        upserts.push({ id, z: e.getZ(id)!, annotation });
        this.sent.set(id, annotation);
      }
      return { reset: true, upserts, removed: [] };
    }
    const upserts: SceneItem[] = [];
    const removed: string[] = [];
    for (const id of this.dirty) {
      const annotation = e.getAnnotation(id);
      if (!annotation) {
        if (this.sent.delete(id)) removed.push(id);
        continue;
      }
      if (this.sent.get(id) === annotation) continue; // changed and changed back (e.g. a cancelled drag)
      this.sent.set(id, annotation);
      upserts.push({ id, z: e.getZ(id)!, annotation });
    }
    this.dirty.clear();
    upserts.sort((a, b) => a.z - b.z);
    return { reset: false, upserts, removed };
  }

  dispose(): void {
    this.unsubscribe();
  }
}
