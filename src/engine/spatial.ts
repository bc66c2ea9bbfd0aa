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
import { getAnnotation, SHARD_COUNT, type ChangedIds, type DocState } from './model/document';

// Rebuild once this many ids changed since the last build: enough that a drag of ~1,000 shapes
// never rebuilds per pointer move, few enough that the linear part of a query stays ~10 us.
const MIN_DYNAMIC = 1024;
const MAX_DYNAMIC = 4096;
/**
 * About this many ids per static tree. The ids are split into vertical stripes by the x of
 * their centre, so one tree build (a sort of 8k boxes, a few milliseconds) is one short
 * prepare() step and a point query touches one or two trees.
 */
const TREE_SIZE = 8192;
/** Ids handled per step of the stripe split, between two looks at the clock. */
const SPLIT_STEP = 16384;

interface Tree {
  tree: Flatbush;
  ids: string[];
}

/**
 * Splits n boxes into stripes of about TREE_SIZE by the x of their centre (a counting sort), in
 * steps of SPLIT_STEP ids, so a 100k split is never one long task: count, then place.
 */
class StripeSplit {
  private readonly k: number;
  private readonly stripe: Uint32Array;
  private readonly sizes: Uint32Array;
  private out: Uint32Array[] | null = null;
  private fill: Uint32Array | null = null;
  private at = 0;
  private placing = false;

  constructor(
    private readonly boxes: Float64Array,
    private readonly n: number,
    private readonly lo: number,
    private readonly hi: number,
  ) {
    this.k = Math.max(1, Math.ceil(n / TREE_SIZE));
    this.stripe = new Uint32Array(n);
    this.sizes = new Uint32Array(this.k);
  }

  /** One step; the stripes (non-empty, id indices) once done, else null. */
  step(): Uint32Array[] | null {
    const { boxes, n, k, stripe } = this;
    const to = Math.min(n, this.at + SPLIT_STEP);
    if (!this.placing) {
      const span = this.hi - this.lo || 1;
      for (let i = this.at; i < to; i++) {
        const s = k === 1 ? 0 : Math.min(k - 1, Math.floor(((boxes[4 * i]! + boxes[4 * i + 2]! - this.lo) / span) * k));
        stripe[i] = s;
        this.sizes[s]!++;
      }
      this.at = to;
      if (to === n) {
        this.placing = true;
        this.at = 0;
        this.out = Array.from(this.sizes, (m) => new Uint32Array(m));
        this.fill = new Uint32Array(k);
      }
      return null;
    }
    const out = this.out!, fill = this.fill!;
    for (let i = this.at; i < to; i++) {
      const s = stripe[i]!;
      out[s]![fill[s]!++] = i;
    }
    this.at = to;
    return to === n ? out.filter((x) => x.length > 0) : null;
  }
}

function makeTree(idx: Uint32Array, ids: readonly string[], boxes: Float64Array): Tree {
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

/**
 * A tree build in bounded steps: bounds read shard by shard from a snapshot of the document,
 * the stripe split in steps, then one tree per step.
 */
class Build {
  readonly ids: string[] = [];
  private readonly boxes: Float64Array;
  private n = 0;
  private shard = 0;
  /** Range of the box centres' doubled x (minX + maxX). */
  private lo = Infinity;
  private hi = -Infinity;
  private split: StripeSplit | null = null;
  private stripes: Uint32Array[] | null = null;
  readonly trees: Tree[] = [];
  /** Ids changed after the snapshot: they go to the dynamic list once the trees are done. */
  readonly changed = new Set<string>();

  constructor(private readonly doc: DocState) {
    this.boxes = new Float64Array(doc.count * 4);
  }

  /** One bounded step; true once the trees are built. */
  step(): boolean {
    if (this.shard < SHARD_COUNT) {
      const { boxes } = this;
      for (const a of this.doc.items[this.shard++]!.values()) {
        const r = annotationBounds(a);
        const o = 4 * this.n++;
        this.ids.push(a.id);
        boxes[o] = r.minX;
        boxes[o + 1] = r.minY;
        boxes[o + 2] = r.maxX;
        boxes[o + 3] = r.maxY;
        const c = r.minX + r.maxX;
        if (c < this.lo) this.lo = c;
        if (c > this.hi) this.hi = c;
      }
      return false;
    }
    if (!this.stripes) {
      if (this.n === 0) this.stripes = [];
      else {
        this.split ??= new StripeSplit(this.boxes, this.n, this.lo, this.hi);
        this.stripes = this.split.step();
      }
      return false;
    }
    if (this.trees.length < this.stripes.length) {
      this.trees.push(makeTree(this.stripes[this.trees.length]!, this.ids, this.boxes));
      return false;
    }
    return true;
  }
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
    const b = (this.build ??= new Build(this.getDoc()));
    while (!b.step()) if (performance.now() - t0 > budgetMs) return false;
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
    const b = new Build(this.getDoc());
    while (!b.step());
    this.build = null;
    this.install(b.trees);
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
