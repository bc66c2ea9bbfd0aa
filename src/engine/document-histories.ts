// Per-document undo history across document swaps (one document per image of a session): the
// live document's key, and the histories of the documents shown earlier, shelved by key. When a
// load replaces the document, the live history goes on the shelf with the shapes it touches as
// they are then; loading that key again brings it back, less the shapes changed meanwhile.
import { sameJson } from '../contract/json';
import { adaptStacks, HistoryShelf, patchId, splittable, type History } from './history';
import { getAnnotation, getZ, type DocState } from './model/document';

export class DocumentHistories {
  private readonly shelf = new HistoryShelf();
  private liveKey: string | null = null;

  /** The key the live document was loaded with (LoadOptions.historyKey: an image id), or null. */
  get key(): string | null {
    return this.liveKey;
  }

  /** Keys of the histories kept for documents not shown now (least recently left first). */
  shelvedKeys(): string[] {
    return this.shelf.keys();
  }

  /**
   * Puts the live document's history on the shelf under its key, with the shapes it touches as
   * they are in `doc` now. The caller has closed any gesture first (an open one cannot be kept).
   */
  shelve(history: History, doc: DocState): void {
    const key = this.liveKey;
    if (key === null) return;
    const stacks = history.snapshot();
    if (!splittable(stacks)) {
      // An entry that replaced whole tables cannot be checked shape by shape: not kept.
      this.shelf.take(key);
      return;
    }
    const touched = new Map<string, unknown>();
    for (const e of [...stacks.undo, ...stacks.redo]) {
      for (const p of e.patches) {
        const id = patchId(p);
        if (id !== null && !touched.has(id)) touched.set(id, getAnnotation(doc, id));
      }
    }
    this.shelf.put(key, { ...stacks, touched });
  }

  /**
   * Makes `key` the live document's (`doc`, just installed; `history` cleared) and brings back
   * the history shelved under it: shapes that are no longer as the history left them (changed
   * elsewhere meanwhile) are forgotten by it, and its z values follow this copy's paint order (a
   * shape it would put back goes on top). A null key keeps no history across swaps.
   */
  open(key: string | null, history: History, doc: DocState): void {
    this.liveKey = key;
    if (key === null) return;
    const shelved = this.shelf.take(key);
    if (!shelved) return;
    const drop = new Set<string>();
    for (const [id, then] of shelved.touched) if (!sameJson(then, getAnnotation(doc, id))) drop.add(id);
    const fresh = new Map<string, number>();
    let nextZ = doc.nextZ;
    history.restore(
      adaptStacks(shelved, drop, (id) => {
        const z = getZ(doc, id) ?? fresh.get(id);
        if (z !== undefined) return z;
        fresh.set(id, nextZ);
        return nextZ++;
      }),
    );
  }
}
