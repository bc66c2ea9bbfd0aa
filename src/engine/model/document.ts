// The document: immutable state changed only by commands through immer.
//
// Why sharded: immer copies a container on its first write, so one flat collection of 100k
// annotations costs a 100k-entry copy (and finalise pass) per edit. Annotations live in
// SHARD_COUNT small Maps picked by a hash of the id, held in an array: an edit copies the array
// (a flat 4k-pointer slice) plus the ~25-entry Maps it touches. (Records were slower: a 4k-key
// record and null-prototype shards are dictionary-mode objects, and copying them dominated undo
// of a 1,000-shape move at 100k.) Paint order is an explicit z number per id (also sharded),
// because insertion order would not survive delete + undo. Commands go through DocTx, which
// replaces whole annotations: one patch per changed annotation keeps patches small and history
// cheap. Annotations stored in the document are frozen (shallowly): they are immutable anyway,
// and immer then skips walking every new value's points when it finalises a command.
import { enableMapSet, type Draft, type Patch } from 'immer';
import type { EditorAnnotation } from './types';

// Shards are Maps: immer drafts them only with its Map/Set plugin (plugins are global).
enableMapSet();

export const SHARD_COUNT = 16384;

type Shard<T> = ReadonlyMap<string, T>;

export interface DocState {
  readonly items: readonly Shard<EditorAnnotation>[];
  readonly z: readonly Shard<number>[];
  /** z of the next created annotation: new shapes go on top. */
  readonly nextZ: number;
  readonly count: number;
}

/** FNV-1a over the id's UTF-16 units: the index of the id's shard. */
export function shardOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % SHARD_COUNT;
}

// Empty shards are one shared Map that is never written to: immer and applyDocPatches copy a
// shard before changing it, so an empty document costs two arrays, not thousands of Maps.
const EMPTY_SHARD: ReadonlyMap<string, unknown> = new Map<string, unknown>();

function emptyShards<T>(): ReadonlyMap<string, T>[] {
  // Every shard exists up front so all patches are at depth 3 (items/shard/id); see History.
  return new Array<ReadonlyMap<string, T>>(SHARD_COUNT).fill(EMPTY_SHARD as ReadonlyMap<string, T>);
}

/** Builds state from annotations in paint order (first = bottom). Throws on a duplicate id. */
export function docFromAnnotations(list: readonly EditorAnnotation[]): DocState {
  const items = emptyShards<EditorAnnotation>() as Map<string, EditorAnnotation>[];
  const z = emptyShards<number>() as Map<string, number>[];
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    const k = shardOf(a.id);
    let shard = items[k]!;
    if ((shard as ReadonlyMap<string, unknown>) === EMPTY_SHARD) {
      shard = items[k] = new Map();
      z[k] = new Map();
    }
    if (shard.has(a.id)) throw new Error(`Duplicate annotation id ${a.id}`);
    shard.set(a.id, Object.freeze(a));
    z[k]!.set(a.id, i);
  }
  return { items, z, nextZ: list.length, count: list.length };
}

export const emptyDoc = (): DocState => docFromAnnotations([]);

/**
 * docFromAnnotations one annotation at a time, also collecting the paint order it implies, so a
 * 100k-shape load can be spread over several tasks (Editor.loadAsync / loadStoredAsync).
 */
export class DocBuilder {
  private readonly items = emptyShards<EditorAnnotation>() as Map<string, EditorAnnotation>[];
  private readonly z = emptyShards<number>() as Map<string, number>[];
  private readonly ids: string[] = [];
  private readonly zOf = new Map<string, number>();

  get count(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.zOf.has(id);
  }

  /** Adds the next annotation (on top of the ones before). Throws on a duplicate id. */
  add(a: EditorAnnotation): void {
    const k = shardOf(a.id);
    let shard = this.items[k]!;
    if ((shard as ReadonlyMap<string, unknown>) === EMPTY_SHARD) {
      shard = this.items[k] = new Map();
      this.z[k] = new Map();
    }
    if (shard.has(a.id)) throw new Error(`Duplicate annotation id ${a.id}`);
    const i = this.ids.length;
    shard.set(a.id, Object.freeze(a));
    this.z[k]!.set(a.id, i);
    this.ids.push(a.id);
    this.zOf.set(a.id, i);
  }

  finish(): { doc: DocState; ids: string[]; zOf: Map<string, number> } {
    const n = this.ids.length;
    return { doc: { items: this.items, z: this.z, nextZ: n, count: n }, ids: this.ids, zOf: this.zOf };
  }
}

export function getAnnotation(doc: DocState, id: string): EditorAnnotation | undefined {
  return doc.items[shardOf(id)]!.get(id);
}

export function getZ(doc: DocState, id: string): number | undefined {
  return doc.z[shardOf(id)]!.get(id);
}

export function forEachAnnotation(doc: DocState, fn: (a: EditorAnnotation, z: number) => void): void {
  for (let k = 0; k < SHARD_COUNT; k++) {
    const zs = doc.z[k]!;
    for (const [id, a] of doc.items[k]!) fn(a, zs.get(id)!);
  }
}

type DraftShard<T> = Map<string, T>;

/**
 * The write side handed to commands: a thin layer over the immer draft. Reads come from the
 * base state (or this command's own writes), so reading never creates draft proxies.
 */
export class DocTx {
  private readonly written = new Map<string, EditorAnnotation | null>();

  constructor(
    private readonly draft: Draft<DocState>,
    readonly base: DocState,
  ) {}

  private itemShard(k: number): DraftShard<EditorAnnotation> {
    return this.draft.items[k] as unknown as DraftShard<EditorAnnotation>;
  }

  private zShard(k: number): DraftShard<number> {
    return this.draft.z[k] as unknown as DraftShard<number>;
  }

  get(id: string): EditorAnnotation | undefined {
    const w = this.written.get(id);
    if (w !== undefined) return w ?? undefined;
    return getAnnotation(this.base, id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Ids this transaction added, replaced or removed (not those of replaceAll). */
  writtenIds(): IterableIterator<string> {
    return this.written.keys();
  }

  /** Replaces an existing annotation (its z is kept). */
  set(a: EditorAnnotation): void {
    if (!this.has(a.id)) throw new Error(`No annotation ${a.id}`);
    this.itemShard(shardOf(a.id)).set(a.id, Object.freeze(a));
    this.written.set(a.id, a);
  }

  /** Adds a new annotation on top (or at z, when restoring an order). */
  add(a: EditorAnnotation, z?: number): void {
    if (this.has(a.id)) throw new Error(`Annotation ${a.id} already exists`);
    const k = shardOf(a.id);
    this.itemShard(k).set(a.id, Object.freeze(a));
    const zz = z ?? this.draft.nextZ;
    this.zShard(k).set(a.id, zz);
    if (zz >= this.draft.nextZ) this.draft.nextZ = zz + 1;
    this.draft.count += 1;
    this.written.set(a.id, a);
  }

  remove(id: string): void {
    if (!this.has(id)) return;
    const k = shardOf(id);
    this.itemShard(k).delete(id);
    this.zShard(k).delete(id);
    this.draft.count -= 1;
    this.written.set(id, null);
  }

  /** Replaces everything (load / remove all), keeping the given paint order. */
  replaceAll(list: readonly EditorAnnotation[]): void {
    const next = docFromAnnotations(list);
    this.draft.items = next.items as Draft<DocState['items']>;
    this.draft.z = next.z as Draft<DocState['z']>;
    this.draft.nextZ = Math.max(this.base.nextZ, next.nextZ);
    this.draft.count = next.count;
    this.written.clear();
    forEachAnnotation(this.base, (a) => this.written.set(a.id, null));
    for (const a of list) this.written.set(a.id, a);
  }
}

/**
 * Applies patches made by commands (whole annotations at items/<shard>/<id>, z/<shard>/<id>,
 * scalars at the root) with structural sharing: each touched container is copied once and
 * values are reused as they are. immer's applyPatches deep-clones every patch value, which made
 * undoing a 1,000-shape move several times slower than the move itself. Returns null for any
 * other patch shape, so the caller can fall back to immer.
 */
export function applyDocPatches(doc: DocState, patches: readonly Patch[]): DocState | null {
  const root = { ...doc } as { -readonly [K in keyof DocState]: DocState[K] } & Record<string, unknown>;
  let itemsCopied = false, zCopied = false;
  const copiedItems = new Set<number>();
  const copiedZ = new Set<number>();
  for (const p of patches) {
    const path = p.path;
    const top = path[0];
    if (path.length === 1 && typeof top === 'string' && top in doc && p.op === 'replace') {
      // Scalars, or a whole table (replace-all): later patches copy from the new table.
      root[top] = p.value;
      if (top === 'items') {
        itemsCopied = false;
        copiedItems.clear();
      } else if (top === 'z') {
        zCopied = false;
        copiedZ.clear();
      }
      continue;
    }
    const shard = path[1];
    const id = path[2];
    if (path.length !== 3 || (top !== 'items' && top !== 'z') || typeof shard !== 'number' || typeof id !== 'string') return null;
    let table: Map<string, unknown>[];
    let copied: Set<number>;
    if (top === 'items') {
      if (!itemsCopied) {
        root.items = root.items.slice();
        itemsCopied = true;
      }
      table = root.items as Map<string, unknown>[];
      copied = copiedItems;
    } else {
      if (!zCopied) {
        root.z = root.z.slice();
        zCopied = true;
      }
      table = root.z as Map<string, unknown>[];
      copied = copiedZ;
    }
    if (!copied.has(shard)) {
      const base = table[shard];
      if (!base) return null;
      table[shard] = new Map(base);
      copied.add(shard);
    }
    if (p.op === 'remove') table[shard]!.delete(id);
    else table[shard]!.set(id, top === 'items' ? Object.freeze(p.value as object) : p.value);
  }
  return root;
}

export type ChangedIds = { all: true } | { all: false; ids: ReadonlySet<string> };

/** Which annotation ids a set of patches touched (for subscribers, the order cache and the spatial index). */
export function changedIds(patches: readonly Patch[]): ChangedIds {
  const ids = new Set<string>();
  for (const p of patches) {
    const root = p.path[0];
    if (root !== 'items' && root !== 'z') continue;
    if (p.path.length < 3) return { all: true };
    ids.add(String(p.path[2]));
  }
  return { all: false, ids };
}

/**
 * Ids in paint order (bottom first), maintained incrementally from change sets so that a move
 * costs nothing and a create/delete costs at most one linear pass.
 */
export class OrderIndex {
  private ids: string[] = [];
  private zOf = new Map<string, number>();

  reset(doc: DocState): void {
    this.zOf.clear();
    // z values are unique integers below nextZ: place ids by z (O(n)) unless z is very sparse.
    if (doc.nextZ <= 4 * doc.count + 1024) {
      const slots: (string | undefined)[] = new Array(doc.nextZ);
      forEachAnnotation(doc, (a, z) => {
        slots[z] = a.id;
        this.zOf.set(a.id, z);
      });
      const ids: string[] = [];
      for (const id of slots) if (id !== undefined) ids.push(id);
      this.ids = ids;
      return;
    }
    const pairs: [string, number][] = [];
    forEachAnnotation(doc, (a, z) => pairs.push([a.id, z]));
    pairs.sort((a, b) => a[1] - b[1]);
    this.ids = pairs.map((p) => p[0]);
    for (const [id, z] of pairs) this.zOf.set(id, z);
  }

  /** Takes an order already known (a load: ids in paint order, z = position). */
  adopt(ids: string[], zOf: Map<string, number>): void {
    this.ids = ids;
    this.zOf = zOf;
  }

  update(doc: DocState, change: ChangedIds): void {
    if (change.all) return this.reset(doc);
    const removed = new Set<string>();
    const added: [string, number][] = [];
    for (const id of change.ids) {
      const before = this.zOf.get(id);
      const after = getZ(doc, id);
      if (before === after) continue;
      if (before !== undefined) removed.add(id);
      if (after !== undefined) added.push([id, after]);
    }
    if (removed.size > 0) {
      this.ids = this.ids.filter((id) => !removed.has(id));
      for (const id of removed) this.zOf.delete(id);
    }
    if (added.length === 0) return;
    added.sort((a, b) => a[1] - b[1]);
    for (const [id, z] of added) this.zOf.set(id, z);
    const lastZ = this.ids.length ? this.zOf.get(this.ids[this.ids.length - 1]!)! : -Infinity;
    if (added[0]![1] > lastZ) {
      for (const [id] of added) this.ids.push(id);
      return;
    }
    // Merge two sorted runs (undo of a delete puts shapes back at their old depth).
    const merged: string[] = new Array(this.ids.length + added.length);
    let i = 0, j = 0, o = 0;
    while (i < this.ids.length || j < added.length) {
      if (j >= added.length || (i < this.ids.length && this.zOf.get(this.ids[i]!)! < added[j]![1])) merged[o++] = this.ids[i++]!;
      else merged[o++] = added[j++]![0];
    }
    this.ids = merged;
  }

  ordered(): readonly string[] {
    return this.ids;
  }

  zIndex(id: string): number | undefined {
    return this.zOf.get(id);
  }
}
