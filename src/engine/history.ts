// Undo/redo over immer patches. Each entry holds the forward patches and their inverse.
// A gesture (a drag, a polygon being drawn) opens an entry with begin(); every command run
// until commit() merges into it, so the whole gesture is one undo step (tldraw's marks).
import type { Patch } from 'immer';

export const HISTORY_LIMIT = 50;
/** Images whose undo history the editor keeps for the session (least recently left dropped first). */
export const SHELVED_HISTORIES = 20;

export interface HistoryEntry {
  readonly label: string;
  readonly patches: readonly Patch[];
  readonly inverse: readonly Patch[];
}

interface OpenEntry {
  label: string;
  patches: Patch[];
  /** One chunk per command, chronological; the inverse list is their reverse. */
  inverseChunks: (readonly Patch[])[];
}

function inverseOf(open: OpenEntry): Patch[] {
  const out: Patch[] = [];
  for (let i = open.inverseChunks.length - 1; i >= 0; i--) for (const p of open.inverseChunks[i]!) out.push(p);
  return out;
}

const keyOf = (p: Patch) => p.path.join('\u0000');

/**
 * Our commands only write whole annotations (items/<shard>/<id>, z/<shard>/<id>) and scalars,
 * so patches on the same path can be folded: a 100-step drag keeps one patch per shape.
 * Anything else (a whole-container replace) falls back to plain concatenation.
 */
function compactable(patches: readonly Patch[]): boolean {
  for (const p of patches) {
    const root = p.path[0];
    if ((root === 'items' || root === 'z') && p.path.length !== 3) return false;
    if (root !== 'items' && root !== 'z' && p.path.length !== 1) return false;
  }
  return true;
}

function compact(entry: OpenEntry): HistoryEntry {
  const allInverse = inverseOf(entry);
  if (!compactable(entry.patches)) return { label: entry.label, patches: entry.patches, inverse: allInverse };
  // Forward patches are chronological; inverse patches are reverse-chronological.
  const first = new Map<string, Patch>();
  const last = new Map<string, Patch>();
  for (const p of entry.patches) {
    const k = keyOf(p);
    if (!first.has(k)) first.set(k, p);
    last.set(k, p);
  }
  const earliestInverse = new Map<string, Patch>();
  for (const p of allInverse) earliestInverse.set(keyOf(p), p); // last one wins = earliest change
  const patches: Patch[] = [];
  const inverse: Patch[] = [];
  for (const [k, f] of first) {
    const l = last.get(k)!;
    const origExists = f.op !== 'add';
    const finalExists = l.op !== 'remove';
    if (!origExists && !finalExists) continue;
    const inv = earliestInverse.get(k)!;
    if (finalExists) patches.push({ op: origExists ? 'replace' : 'add', path: l.path, value: l.value });
    else patches.push({ op: 'remove', path: l.path });
    if (origExists) inverse.push({ op: finalExists ? 'replace' : 'add', path: inv.path, value: inv.value });
    else inverse.push({ op: 'remove', path: inv.path });
  }
  return { label: entry.label, patches, inverse };
}

export class History {
  private undoStack: HistoryEntry[] = [];
  private redoStack: HistoryEntry[] = [];
  private open: OpenEntry | null = null;

  constructor(private readonly limit = HISTORY_LIMIT) {}

  /** Records a command's patches: into the open gesture, or as its own entry. */
  record(label: string, patches: readonly Patch[], inverse: readonly Patch[]): void {
    if (patches.length === 0) return;
    if (this.open) {
      for (const p of patches) this.open.patches.push(p);
      this.open.inverseChunks.push(inverse);
      return;
    }
    this.push({ label, patches, inverse });
  }

  /** Starts a gesture; later commands merge into one entry labelled `label` until commit(). */
  begin(label: string): void {
    if (this.open) this.commit();
    this.open = { label, patches: [], inverseChunks: [] };
  }

  /** Relabels the open gesture (e.g. a drag that turns out to move 3 shapes). */
  relabel(label: string): void {
    if (this.open) this.open.label = label;
  }

  get inGesture(): boolean {
    return this.open !== null;
  }

  commit(): void {
    const open = this.open;
    this.open = null;
    if (!open || open.patches.length === 0) return;
    const entry = compact(open);
    if (entry.patches.length > 0) this.push(entry);
  }

  /** Ends the gesture without recording; returns the inverse patches the caller must apply. */
  cancel(): readonly Patch[] {
    const open = this.open;
    this.open = null;
    return open ? inverseOf(open) : [];
  }

  private push(entry: HistoryEntry): void {
    this.undoStack.push(entry);
    if (this.undoStack.length > this.limit) this.undoStack.splice(0, this.undoStack.length - this.limit);
    this.redoStack = [];
  }

  canUndo(): boolean {
    return this.undoStack.length > 0;
  }

  canRedo(): boolean {
    return this.redoStack.length > 0;
  }

  /** Pops the entry to undo; the caller applies its inverse patches. */
  takeUndo(): HistoryEntry | undefined {
    const e = this.undoStack.pop();
    if (e) this.redoStack.push(e);
    return e;
  }

  takeRedo(): HistoryEntry | undefined {
    const e = this.redoStack.pop();
    if (e) this.undoStack.push(e);
    return e;
  }

  /**
   * Drops every change to these annotation ids from the entries, and the count / nextZ scalars
   * (the editor derives those when it applies patches): the shapes were changed elsewhere, and
   * undo must not put back an older copy over that change. Entries left with nothing go. An
   * entry that replaced whole tables cannot be split by id: then the history is cleared.
   */
  forget(ids: ReadonlySet<string>): void {
    if (ids.size === 0) return;
    const open = this.open;
    const entries = [...this.undoStack, ...this.redoStack];
    if (!entries.every((e) => compactable(e.patches)) || (open && !compactable(open.patches))) {
      this.clear();
      return;
    }
    const keep = (p: Patch) => (p.path[0] === 'items' || p.path[0] === 'z') && !ids.has(String(p.path[2]));
    const strip = (list: HistoryEntry[]) =>
      list.map((e) => ({ label: e.label, patches: e.patches.filter(keep), inverse: e.inverse.filter(keep) })).filter((e) => e.patches.length > 0);
    this.undoStack = strip(this.undoStack);
    this.redoStack = strip(this.redoStack);
    if (open) {
      open.patches = open.patches.filter(keep);
      open.inverseChunks = open.inverseChunks.map((c) => c.filter(keep));
    }
  }

  clear(): void {
    this.undoStack = [];
    this.redoStack = [];
    this.open = null;
  }

  /** The stacks as they are (an open gesture is left out): to shelve while another document is shown. */
  snapshot(): HistoryStacks {
    return { undo: this.undoStack.slice(), redo: this.redoStack.slice() };
  }

  /** Puts shelved stacks back (replacing the current ones). */
  restore(stacks: HistoryStacks): void {
    this.undoStack = stacks.undo.slice(-this.limit);
    this.redoStack = stacks.redo.slice();
    this.open = null;
  }

  /** Labels, oldest first (for a history panel and tests). */
  undoLabels(): string[] {
    return this.undoStack.map((e) => e.label);
  }

  redoLabels(): string[] {
    return this.redoStack.map((e) => e.label).reverse();
  }
}

export interface HistoryStacks {
  readonly undo: readonly HistoryEntry[];
  readonly redo: readonly HistoryEntry[];
}

/**
 * A document's history put aside while another document is shown (another image of the
 * session), with the shapes its entries touch as they were when it was put aside: the document
 * loaded when it comes back is checked against them, and entries on shapes that changed since
 * (someone else's save) lose those shapes, as History.forget does for a merge.
 */
export interface ShelvedHistory extends HistoryStacks {
  /** Each annotation id the entries touch, and its object then (undefined: not in the document). */
  readonly touched: ReadonlyMap<string, unknown>;
}

/** The annotation id an items/<shard>/<id> or z/<shard>/<id> patch is about, else null. */
export function patchId(p: Patch): string | null {
  return (p.path[0] === 'items' || p.path[0] === 'z') && p.path.length === 3 ? String(p.path[2]) : null;
}

/** True when every patch of the stacks is per annotation or a scalar (so entries can be split by id). */
export function splittable(stacks: HistoryStacks): boolean {
  return [...stacks.undo, ...stacks.redo].every((e) => compactable(e.patches) && compactable(e.inverse));
}

/**
 * Stacks for another copy of their document: patches on `drop` ids and the count / nextZ scalars
 * left out (the editor derives those), z values passed through `zFor` (a loaded copy numbers its
 * paint order afresh), entries left with nothing dropped.
 */
export function adaptStacks(stacks: HistoryStacks, drop: ReadonlySet<string>, zFor: (id: string, z: unknown) => unknown): HistoryStacks {
  const fix = (list: readonly Patch[]) => {
    const out: Patch[] = [];
    for (const p of list) {
      const id = patchId(p);
      if (id === null || drop.has(id)) continue;
      out.push(p.path[0] === 'z' && p.op !== 'remove' ? { ...p, value: zFor(id, p.value) } : p);
    }
    return out;
  };
  const map = (entries: readonly HistoryEntry[]) =>
    entries.map((e) => ({ label: e.label, patches: fix(e.patches), inverse: fix(e.inverse) })).filter((e) => e.patches.length > 0);
  return { undo: map(stacks.undo), redo: map(stacks.redo) };
}

/** Shelved histories by key, the least recently shelved or taken dropped past `limit`. */
export class HistoryShelf {
  private readonly items = new Map<string, ShelvedHistory>();
  constructor(readonly limit = SHELVED_HISTORIES) {}

  put(key: string, h: ShelvedHistory): void {
    this.items.delete(key);
    if (h.undo.length === 0 && h.redo.length === 0) return;
    this.items.set(key, h);
    while (this.items.size > this.limit) this.items.delete(this.items.keys().next().value!);
  }

  /** Takes the history out (it is the live one again). */
  take(key: string): ShelvedHistory | undefined {
    const h = this.items.get(key);
    this.items.delete(key);
    return h;
  }

  keys(): string[] {
    return [...this.items.keys()];
  }
}
