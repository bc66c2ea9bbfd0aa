// The three ways the document changes, each as immer patches the editor records or replays:
// a command (undoable), a merge of changes made elsewhere (outside history), and history
// patches replayed by undo / redo. Pure: they take a document and return the next one.
import { Immer, enablePatches, type Patch } from 'immer';
import type { Command, CommandEnv } from './commands/types';
import { validateEditorAnnotation } from './model/convert';
import { applyDocPatches, changedIds, DocTx, getAnnotation, getZ, type ChangedIds, type DocState } from './model/document';
import { isPending, withPending } from './model/prediction';
import type { EditorAnnotation } from './model/types';

enablePatches();
// A private instance: no auto-freeze (freezing walks every new object, too slow at 100k
// shapes; the types are readonly instead), and global immer settings stay untouched.
const immer = new Immer({ autoFreeze: false });

/** Runs a command on `base`; no patches means nothing changed (`doc` is then `base`). */
export function runCommand<P, R>(base: DocState, cmd: Command<P, R>, payload: P, env: CommandEnv): { doc: DocState; patches: Patch[]; inverse: Patch[]; result: R } {
  let result!: R;
  const [doc, patches, inverse] = immer.produceWithPatches(base, (draft) => {
    const tx = new DocTx(draft, base);
    result = cmd.run(tx, payload, env);
    acceptEdited(tx);
  });
  return { doc, patches, inverse, result };
}

/** Editing a pending prediction accepts it (issue 34): `source.pending` goes false in the same undo step. */
function acceptEdited(tx: DocTx): void {
  for (const id of [...tx.writtenIds()]) {
    const a = tx.get(id);
    if (a && isPending(a)) tx.set(withPending(a, false));
  }
}

/** Upserts and removals made elsewhere; throws on an invalid shape (then nothing changes). */
export function mergeRemote(base: DocState, upserts: readonly EditorAnnotation[], removed: Iterable<string>): { doc: DocState; patches: Patch[] } {
  const [doc, patches] = immer.produceWithPatches(base, (draft) => {
    const tx = new DocTx(draft, base);
    for (const id of removed) tx.remove(id);
    for (const a of upserts) {
      const problem = validateEditorAnnotation(a);
      if (problem) throw new Error(`Invalid annotation ${a.id}: ${problem}`);
      if (tx.has(a.id)) tx.set(a);
      else tx.add(a);
    }
  });
  return { doc, patches };
}

/** Replays history patches (undo / redo, a gesture rolled back) on `before`. */
export function replayPatches(before: DocState, patches: readonly Patch[]): { doc: DocState; change: ChangedIds } {
  const change = changedIds(patches);
  let doc = applyDocPatches(before, patches) ?? immer.applyPatches(before, patches as Patch[]);
  // count and nextZ follow the shapes rather than the values a history entry recorded: those
  // are stale once applyRemote changed the document in between.
  if (!change.all) {
    let count = before.count;
    let nextZ = before.nextZ;
    for (const id of change.ids) {
      count += (getAnnotation(doc, id) ? 1 : 0) - (getAnnotation(before, id) ? 1 : 0);
      const z = getZ(doc, id);
      if (z !== undefined && z >= nextZ) nextZ = z + 1;
    }
    if (count !== doc.count || nextZ !== doc.nextZ) doc = { ...doc, count, nextZ };
  }
  return { doc, change };
}
