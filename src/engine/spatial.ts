// Spatial index for hit-testing and marquee queries: a two-level index.
// Flatbush is static and fast (bulk build, microsecond queries) but cannot be edited, so ids
// changed since the last build live in a small dynamic list with cached bounds: their tree
// entries are ignored and they are tested linearly. The tree is rebuilt lazily, at query time,
// only once the dynamic list grows past a threshold, so a single edit (or a drag of a thousand
// shapes) never triggers a 100k rebuild.
import Flatbush from 'flatbush';
import { annotationBounds, type Bounds } from './model/geometry';
import { forEachAnnotation, getAnnotation, type ChangedIds, type DocState } from './model/document';

// Rebuild once this many ids changed since the last build: enough that a drag of ~1,000 shapes
// never rebuilds per pointer move, few enough that the linear part of a query stays ~10 us.
const MIN_DYNAMIC = 1024;
const MAX_DYNAMIC = 4096;

export class SpatialIndex {
  private tree: Flatbush | null = null;
  private treeIds: string[] = [];
  private readonly stale = new Set<string>();
  private readonly dynamic = new Map<string, Bounds>();
  private dirtyAll = true;

  constructor(private readonly getDoc: () => DocState) {}

  update(change: ChangedIds): void {
    if (change.all) {
      this.dirtyAll = true;
      return;
    }
    if (this.dirtyAll) return;
    const doc = this.getDoc();
    for (const id of change.ids) {
      this.stale.add(id);
      const a = getAnnotation(doc, id);
      if (a) this.dynamic.set(id, annotationBounds(a));
      else this.dynamic.delete(id);
    }
    if (this.stale.size > Math.min(MAX_DYNAMIC, Math.max(MIN_DYNAMIC, this.treeIds.length / 8))) this.dirtyAll = true;
  }

  /** Number of ids held outside the static tree (exposed for tests of the rebuild policy). */
  get dynamicSize(): number {
    return this.dirtyAll ? 0 : this.dynamic.size;
  }

  private rebuild(): void {
    const doc = this.getDoc();
    const ids: string[] = [];
    const boxes: number[] = [];
    forEachAnnotation(doc, (a) => {
      const b = annotationBounds(a);
      ids.push(a.id);
      boxes.push(b.minX, b.minY, b.maxX, b.maxY);
    });
    this.treeIds = ids;
    if (ids.length === 0) {
      this.tree = null;
    } else {
      const tree = new Flatbush(ids.length);
      for (let i = 0; i < boxes.length; i += 4) tree.add(boxes[i]!, boxes[i + 1]!, boxes[i + 2]!, boxes[i + 3]!);
      tree.finish();
      this.tree = tree;
    }
    this.stale.clear();
    this.dynamic.clear();
    this.dirtyAll = false;
  }

  /** Ids whose bounds intersect the rectangle (unordered, unfiltered by visibility). */
  search(minX: number, minY: number, maxX: number, maxY: number): string[] {
    if (this.dirtyAll) this.rebuild();
    const out: string[] = [];
    if (this.tree) {
      for (const i of this.tree.search(minX, minY, maxX, maxY)) {
        const id = this.treeIds[i]!;
        if (!this.stale.has(id)) out.push(id);
      }
    }
    for (const [id, b] of this.dynamic) {
      if (b.minX <= maxX && b.maxX >= minX && b.minY <= maxY && b.maxY >= minY) out.push(id);
    }
    return out;
  }
}
