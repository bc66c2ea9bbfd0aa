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
  /** True when pull(limit) stopped early: call pull again for the rest of the scene. */
  readonly more?: boolean;
}

export class SceneTracker {
  private reset = true;
  /** A whole-scene pull in progress (pull with a limit): the ids still to send, in paint order. */
  private resetIds: readonly string[] | null = null;
  private resetAt = 0;
  private readonly dirty = new Set<string>();
  /** What the renderer has, by identity: annotations are immutable, so same object = same shape. */
  private readonly sent = new Map<string, EditorAnnotation>();
  private readonly unsubscribe: () => void;

  constructor(private readonly editor: Editor) {
    this.unsubscribe = editor.subscribe((c) => {
      if (!c.document) return;
      if (c.document.all) {
        this.reset = true;
        this.resetIds = null;
        this.dirty.clear();
      } else if (!this.reset) {
        for (const id of c.document.ids) this.dirty.add(id);
      }
    });
  }

  /**
   * Everything that changed since the previous call (the first call returns the whole scene).
   * With a limit, a whole-scene pull is handed out in slices of at most `limit` shapes (`more`
   * set until the last), so a 100k-shape scene can be packed over several tasks; changes made
   * meanwhile follow once the scene is out.
   */
  pull(limit = Infinity): SceneDiff {
    const e = this.editor;
    let first = false;
    if (this.reset) {
      this.reset = false;
      this.dirty.clear();
      this.sent.clear();
      this.resetIds = e.getOrderedIds();
      this.resetAt = 0;
      first = true;
    }
    if (this.resetIds) {
      const ids = this.resetIds;
      const end = Math.min(ids.length, this.resetAt + Math.max(1, limit));
      const upserts: SceneItem[] = [];
      for (let i = this.resetAt; i < end; i++) {
        const id = ids[i]!;
        const annotation = e.getAnnotation(id);
        if (!annotation) continue; // deleted since the pull began
        upserts.push({ id, z: e.getZ(id)!, annotation });
        this.sent.set(id, annotation);
      }
      this.resetAt = end;
      const more = end < ids.length;
      if (!more) this.resetIds = null;
      return more ? { reset: first, upserts, removed: [], more } : { reset: first, upserts, removed: [] };
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
