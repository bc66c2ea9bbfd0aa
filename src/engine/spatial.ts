// Spatial index for hit-testing and marquee queries: a two-level index.
// Flatbush is static and fast (bulk build, microsecond queries) but cannot be edited, so ids
// changed since the last build live in a small dynamic list with cached bounds: their tree
// entries are ignored and they are tested linearly. The tree is rebuilt lazily, at query time,
// only once the dynamic list grows past a threshold, so a single edit (or a drag of a thousand
// shapes) never triggers a 100k rebuild. After a load, prepare() builds the index in slices of a
// few milliseconds (idle time; vertical stripes of ~8k ids, each tree one short sort), so the first
// hit-test does not pay a 100k build in one task.
import Flatbush from 'flatbush';
import { annotationBounds, type Bounds } from './model/geometry';
import { forEachAnnotation, getAnnotation, SHARD_COUNT, type ChangedIds, type DocState } from './model/document';

/** A tree build spread over several prepare() calls: bounds read shard by shard from a snapshot. */
interface Build {
  doc: DocState;
  shard: number;
  ids: string[];
  boxes: number[];
  /** Ids changed after the snapshot: they go to the dynamic list once the tree is done. */
  changed: Set<string>;
}

// Rebuild once this many ids changed since the last build: enough that a drag of ~1,000 shapes
// never rebuilds per pointer move, few enough that the linear part of a query stays ~10 us.
const MIN_DYNAMIC = 1024;
const MAX_DYNAMIC = 4096;
/**
 * About this many ids per static tree. The ids are split into vertical stripes by the x of
 * their centre, so one tree build (a sort) stays a few ms (prepare() slices stay short) and a
 * point query touches one or two trees.
 */
const TREE_SIZE = 8192;

interface Tree {
  tree: Flatbush;
  ids: string[];
}

/** A build spread over several prepare() calls: bounds read shard by shard from a snapshot. */
interface Build {
  doc: DocState;
  shard: number;
  ids: string[];
  boxes: number[];
  /** Ids of each stripe (indices into ids), once all bounds are read. */
  stripes: Uint32Array[] | null;
  trees: Tree[];
  /** Ids changed after the snapshot: they go to the dynamic list once the trees are done. */
  changed: Set<string>;
}

/** Splits items into stripes of about TREE_SIZE by the x of their box centre (counting sort). */
function stripesOf(boxes: readonly number[]): Uint32Array[] {
  const n = boxes.length / 4;
  const k = Math.max(1, Math.ceil(n / TREE_SIZE));
  if (k === 1) return [Uint32Array.from({ length: n }, (_, i) => i)];
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const c = boxes[4 * i]! + boxes[4 * i + 2]!;
    if (c < lo) lo = c;
    if (c > hi) hi = c;
  }
  const span = hi - lo || 1;
  const stripe = new Uint32Array(n);
  const sizes = new Uint32Array(k);
  for (let i = 0; i < n; i++) {
    const c = boxes[4 * i]! + boxes[4 * i + 2]!;
    const s = Math.min(k - 1, Math.floor(((c - lo) / span) * k));
    stripe[i] = s;
    sizes[s]!++;
  }
  const out = Array.from(sizes, (m) => new Uint32Array(m));
  const fill = new Uint32Array(k);
  for (let i = 0; i < n; i++) {
    const s = stripe[i]!;
    out[s]![fill[s]!++] = i;
  }
  return out.filter((x) => x.length > 0);
}

function makeTree(idx: Uint32Array, ids: readonly string[], boxes: readonly number[]): Tree {
  const tree = new Flatbush(idx.length);
  const treeIds: string[] = new Array(idx.length);
  for (let j = 0; j < idx.length; j++) {
    const i = idx[j]!;
    tree.add(boxes[4 * i]!, boxes[4 * i + 1]!, boxes[4 * i + 2]!, boxes[4 * i + 3]!);
    treeIds[j] = ids[i]!;
  }
  tree.finish();
  return { tree, ids: treeIds };
}

export class SpatialIndex {
  private trees: Tree[] = [];
  private size = 0;
  private readonly stale = new Set<string>();
  private readonly dynamic = new Map<string, Bounds>();
  private dirtyAll = true;
  private build: Build | null = null;

  constructor(private readonly getDoc: () => DocState) {}

  update(change: ChangedIds): void {
    if (change.all) {
      this.dirtyAll = true;
      this.build = null;
      return;
    }
    if (this.build) for (const id of change.ids) this.build.changed.add(id);
    if (this.dirtyAll) return;
    const doc = this.getDoc();
    for (const id of change.ids) {
      this.stale.add(id);
      const a = getAnnotation(doc, id);
      if (a) this.dynamic.set(id, annotationBounds(a));
      else this.dynamic.delete(id);
    }
    if (this.stale.size > Math.min(MAX_DYNAMIC, Math.max(MIN_DYNAMIC, this.size / 8))) this.dirtyAll = true;
  }

  /** Number of ids held outside the static trees (exposed for tests of the rebuild policy). */
  get dynamicSize(): number {
    return this.dirtyAll ? 0 : this.dynamic.size;
  }

  /** True when the index is current (no build pending). */
  get ready(): boolean {
    return !this.dirtyAll;
  }

  /**
   * Works on a pending rebuild for about `budgetMs`: bounds shard by shard, then one tree of
   * up to TREE_SIZE ids per step. Returns true once the index is current.
   */
  prepare(budgetMs = 8): boolean {
    if (!this.dirtyAll) return true;
    const t0 = performance.now();
    const b = (this.build ??= { doc: this.getDoc(), shard: 0, ids: [], boxes: [], stripes: null, trees: [], changed: new Set() });
    for (;;) {
      if (b.shard < SHARD_COUNT) {
        for (const a of b.doc.items[b.shard++]!.values()) {
          const r = annotationBounds(a);
          b.ids.push(a.id);
          b.boxes.push(r.minX, r.minY, r.maxX, r.maxY);
        }
      } else if (!b.stripes) {
        b.stripes = b.ids.length ? stripesOf(b.boxes) : [];
      } else if (b.trees.length < b.stripes.length) {
        b.trees.push(makeTree(b.stripes[b.trees.length]!, b.ids, b.boxes));
      } else break;
      if (performance.now() - t0 > budgetMs) return false;
    }
    this.build = null;
    this.install(b.trees);
    // shapes changed while the bounds were being read: their tree entries are stale
    const doc = this.getDoc();
    for (const id of b.changed) {
      this.stale.add(id);
      const a = getAnnotation(doc, id);
      if (a) this.dynamic.set(id, annotationBounds(a));
    }
    return true;
  }

  private rebuild(): void {
    this.build = null;
    const ids: string[] = [];
    const boxes: number[] = [];
    forEachAnnotation(this.getDoc(), (a) => {
      const b = annotationBounds(a);
      ids.push(a.id);
      boxes.push(b.minX, b.minY, b.maxX, b.maxY);
    });
    this.install(ids.length ? stripesOf(boxes).map((idx) => makeTree(idx, ids, boxes)) : []);
  }

  private install(trees: Tree[]): void {
    this.trees = trees;
    this.size = trees.reduce((n, t) => n + t.ids.length, 0);
    this.stale.clear();
    this.dynamic.clear();
    this.dirtyAll = false;
  }

  /** Ids whose bounds intersect the rectangle (unordered, unfiltered by visibility). */
  search(minX: number, minY: number, maxX: number, maxY: number): string[] {
    if (this.dirtyAll) this.rebuild();
    const out: string[] = [];
    const stale = this.stale.size > 0 ? this.stale : null;
    for (const t of this.trees) {
      const f = t.tree;
      if (f.minX > maxX || f.maxX < minX || f.minY > maxY || f.maxY < minY) continue;
      for (const i of f.search(minX, minY, maxX, maxY)) {
        const id = t.ids[i]!;
        if (!stale || !stale.has(id)) out.push(id);
      }
    }
    for (const [id, b] of this.dynamic) {
      if (b.minX <= maxX && b.maxX >= minX && b.minY <= maxY && b.maxY >= minY) out.push(id);
    }
    return out;
  }
}
