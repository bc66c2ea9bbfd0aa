// Skeleton tool (issue 33 §4): draws one keypoint skeleton instance of the active class, its
// points placed in the class's order. The keypoint tool is this one while its class is a
// skeleton class (Editor.activeTool), so the app's Keypoint tool draws skeletons with them. Each click places the next point; X skips it (not
// labelled, v 0), O marks the next point placed as occluded (v 1; O again takes it back),
// Backspace takes the last point back, Enter ends the instance early (the rest not labelled),
// Escape drops it. The instance is one history gesture: it is created at its first point and
// each point changes it (command set-skeleton-point), so the renderer draws it as it grows and
// one undo takes the whole instance away. After the last point it is selected, as any shape
// just drawn. The next point's name is view.drawing (SkeletonPreview) for the app to show at the
// pointer.
import type { Point, SkeletonDefinition } from '../../model/types';
import type { Tool, ToolApi, ToolKeyEvent, ToolPointerEvent } from '../types';

/** Skips the next point (not labelled). */
export const SKELETON_SKIP_KEY = 'x';
/** Marks the next point placed as occluded. */
export const SKELETON_OCCLUDE_KEY = 'o';

export interface SkeletonPreview {
  readonly kind: 'skeleton';
  /** The class drawn, and its points' names. */
  readonly class: string;
  readonly names: readonly string[];
  /** The index of the next point to place. */
  readonly next: number;
  /** True when the next point will be placed occluded. */
  readonly occluded: boolean;
  /** The instance being drawn (null before its first point). */
  readonly id: string | null;
  /** The pointer in image coordinates, or null when it is off the canvas. */
  readonly cursor: Point | null;
}

interface Drawing {
  id: string;
  cls: string;
  def: SkeletonDefinition;
  next: number;
}

export class SkeletonTool implements Tool {
  readonly id = 'skeleton' as const;
  private drawing: Drawing | null = null;
  private occluded = false;
  private cursor: Point | null = null;

  constructor(private readonly api: ToolApi) {}

  isBusy(): boolean {
    return this.drawing !== null;
  }

  /** The active class's skeleton, or null (then the app is told the class is missing). */
  private definition(): { cls: string; def: SkeletonDefinition } | null {
    const cls = this.api.view().activeClass;
    const def = cls ? this.api.skeletonOf(cls) : null;
    if (!cls || !def || def.points.length === 0) {
      this.api.emit({ type: 'needs-class', tool: 'skeleton' });
      return null;
    }
    return { cls, def };
  }

  /** Starts the instance (its gesture and its annotation, every point not labelled yet). */
  private start(): Drawing | null {
    if (this.drawing) return this.drawing;
    const found = this.definition();
    if (!found) return null;
    const id = this.api.newId();
    this.api.begin(`Draw ${found.cls}`);
    const keypoints = found.def.points.map(() => ({ x: 0, y: 0, v: 0 as const }));
    this.api.execute('create', { annotation: { id, type: 'skeleton', class: found.cls, keypoints, attributes: [] } });
    this.drawing = { id, cls: found.cls, def: found.def, next: 0 };
    return this.drawing;
  }

  private preview(): void {
    const cls = this.drawing?.cls ?? this.api.view().activeClass;
    const def = this.drawing?.def ?? (cls ? this.api.skeletonOf(cls) : null);
    if (!cls || !def) {
      this.api.setDrawing(null);
      return;
    }
    this.api.setDrawing({ kind: 'skeleton', class: cls, names: def.points, next: this.drawing?.next ?? 0, occluded: this.occluded, id: this.drawing?.id ?? null, cursor: this.cursor });
  }

  /** Moves on to the next point; after the last one the instance is done. */
  private advance(d: Drawing): void {
    d.next += 1;
    this.occluded = false;
    if (d.next >= d.def.points.length) this.finish();
    else this.preview();
  }

  /** Ends the instance: kept and selected when a point is labelled, else taken back. */
  private finish(): void {
    const d = this.drawing;
    if (!d) return;
    this.drawing = null;
    this.occluded = false;
    const a = this.api.get(d.id);
    if (a?.type === 'skeleton' && a.keypoints.some((p) => p.v !== 0)) {
      this.api.commit();
      this.api.setSelection([d.id]);
      this.api.emit({ type: 'created', id: d.id });
    } else {
      this.api.rollback();
    }
    this.preview();
  }

  onPointerDown(e: ToolPointerEvent): void {
    if (e.button !== 0) return;
    const d = this.start();
    if (!d) return;
    const [x, y] = this.api.clampToImage(e.x, e.y);
    this.api.execute('set-skeleton-point', { id: d.id, index: d.next, point: { x, y, v: this.occluded ? 1 : 2 } });
    this.advance(d);
  }

  onPointerMove(e: ToolPointerEvent): void {
    this.cursor = [e.x, e.y];
    this.preview();
  }

  onPointerUp(): void {}
  onDoubleClick(): void {}

  onKeyDown(e: ToolKeyEvent): boolean {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const key = e.key.toLowerCase();
    if (key === SKELETON_OCCLUDE_KEY) {
      this.occluded = !this.occluded;
      this.preview();
      return true;
    }
    if (key === SKELETON_SKIP_KEY) {
      const d = this.start();
      if (d) this.advance(d);
      return true;
    }
    const d = this.drawing;
    if (!d) return false;
    switch (e.key) {
      case 'Enter':
        this.finish();
        return true;
      case 'Escape':
        this.cancel();
        return true;
      case 'Backspace':
        if (d.next > 0) {
          d.next -= 1;
          this.api.execute('set-skeleton-point', { id: d.id, index: d.next, point: { x: 0, y: 0, v: 0 } });
          this.preview();
        }
        return true;
    }
    return false;
  }

  cancel(): void {
    if (this.drawing) this.api.rollback();
    this.drawing = null;
    this.occluded = false;
    this.cursor = null;
    this.api.setDrawing(null);
  }
}
