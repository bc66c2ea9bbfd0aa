// Hit-testing over the spatial index: which visible shapes a point or a rectangle meets, in
// paint order. The index narrows the candidates by bounds; the exact tests are the geometry's.
import { annotationBounds, boundsContains, hitAnnotation, KEYPOINT_HIT_SCALE, type Bounds, type SkeletonEdgesOf } from './model/geometry';
import { getAnnotation, type DocState, type OrderIndex } from './model/document';
import type { SpatialIndex } from './spatial';

export class HitTester {
  constructor(
    private readonly index: SpatialIndex,
    private readonly order: OrderIndex,
    private readonly doc: () => DocState,
    /** A skeleton class's edges: a skeleton is hit on its points and edges. */
    private readonly edgesOf?: SkeletonEdgesOf,
  ) {}

  /** Annotations not in `hidden` hit at an image point, topmost (newest) first. */
  all(x: number, y: number, tolerance: number, hidden: ReadonlySet<string>): string[] {
    const doc = this.doc();
    const hits: string[] = [];
    const r = tolerance * KEYPOINT_HIT_SCALE; // the widest hit radius (keypoints')
    for (const id of this.index.search(x - r, y - r, x + r, y + r)) {
      if (hidden.has(id)) continue;
      const a = getAnnotation(doc, id);
      if (a && hitAnnotation(a, x, y, tolerance, this.edgesOf)) hits.push(id);
    }
    if (hits.length > 1) hits.sort((a, b) => this.order.zIndex(b)! - this.order.zIndex(a)!);
    return hits;
  }

  /** Annotations not in `hidden` whose bounds lie inside the rectangle (marquee rule). */
  inside(b: Bounds, hidden: ReadonlySet<string>): string[] {
    const doc = this.doc();
    const out: string[] = [];
    for (const id of this.index.search(b.minX, b.minY, b.maxX, b.maxY)) {
      if (hidden.has(id)) continue;
      const a = getAnnotation(doc, id);
      if (a && boundsContains(b, annotationBounds(a))) out.push(id);
    }
    return out;
  }

  /** Annotations not in `hidden` whose bounds intersect the rectangle, in paint order. */
  intersecting(b: Bounds, hidden: ReadonlySet<string>): string[] {
    const out = this.index.search(b.minX, b.minY, b.maxX, b.maxY).filter((id) => !hidden.has(id));
    return out.sort((a, c) => this.order.zIndex(a)! - this.order.zIndex(c)!);
  }
}
