// Polygon tool. Click to add points; click near the first point (10 screen px), press Enter or
// double-click to close once there are at least 3. Backspace removes the last point, Escape cancels.
// Holes: start with Shift held inside a polygon (a selected one first, else the topmost one under
// the pointer); the drawn ring is then cut out of that polygon instead of becoming a new shape.
import { MIN_POLYGON_POINTS, type Point } from '../../model/types';
import { hitRadius, type Tool, type ToolApi, type ToolKeyEvent, type ToolPointerEvent } from '../types';

export const CLOSE_DISTANCE = 10;
/** Clicks closer than this (screen px) to the previous point are ignored (double-clicks). */
export const MIN_POINT_SPACING = 2;

type State = { k: 'idle' } | { k: 'drawing'; points: Point[]; holeOf: string | null; cursor: Point | null; scale: number };

export class PolygonTool implements Tool {
  readonly id = 'polygon' as const;
  private state: State = { k: 'idle' };

  constructor(private readonly api: ToolApi) {}

  isBusy(): boolean {
    return this.state.k !== 'idle';
  }

  private nearFirst(s: Extract<State, { k: 'drawing' }>, x: number, y: number, scale: number): boolean {
    const first = s.points[0]!;
    const r = Math.max(0.5, CLOSE_DISTANCE / scale);
    return s.points.length >= MIN_POLYGON_POINTS && (first[0] - x) ** 2 + (first[1] - y) ** 2 <= r * r;
  }

  private holeTarget(e: ToolPointerEvent): string | null {
    const hits = this.api.hitTestAll(e.x, e.y, hitRadius(e.scale)).filter((id) => this.api.get(id)?.type === 'polygon');
    const selected = this.api.view().selected;
    return hits.find((id) => selected.has(id)) ?? hits[0] ?? null;
  }

  private publish(): void {
    const s = this.state;
    if (s.k !== 'drawing') return this.api.setDrawing(null);
    const closable = s.cursor !== null && this.nearFirst(s, s.cursor[0], s.cursor[1], s.scale);
    this.api.setDrawing({ kind: 'polygon', points: s.points.slice(), cursor: s.cursor, closable, holeOf: s.holeOf });
  }

  onPointerDown(e: ToolPointerEvent): void {
    if (e.button !== 0) return;
    const [x, y] = this.api.clampToImage(e.x, e.y);
    const s = this.state;
    if (s.k === 'idle') {
      const holeOf = e.shiftKey ? this.holeTarget(e) : null;
      if (!holeOf && !this.api.view().activeClass) {
        this.api.emit({ type: 'needs-class', tool: 'polygon' });
        return;
      }
      this.state = { k: 'drawing', points: [[x, y]], holeOf, cursor: [x, y], scale: e.scale };
      return this.publish();
    }
    s.scale = e.scale;
    if (this.nearFirst(s, x, y, e.scale)) return this.close();
    const last = s.points[s.points.length - 1]!;
    const spacing = MIN_POINT_SPACING / e.scale;
    if ((last[0] - x) ** 2 + (last[1] - y) ** 2 < spacing * spacing) return;
    s.points.push([x, y]);
    this.publish();
  }

  onPointerMove(e: ToolPointerEvent): void {
    const s = this.state;
    if (s.k !== 'drawing') return;
    s.cursor = this.api.clampToImage(e.x, e.y);
    s.scale = e.scale;
    this.publish();
  }

  onPointerUp(): void {}

  /** A double-click closes too (its two clicks add no extra point: see MIN_POINT_SPACING). */
  onDoubleClick(): void {
    this.close();
  }

  /** Closes the ring: a new polygon, or a hole cut into the target. Fewer than 3 points: no-op. */
  close(): void {
    const s = this.state;
    if (s.k !== 'drawing' || s.points.length < MIN_POLYGON_POINTS) return;
    const points = s.points.slice();
    this.cancel();
    if (s.holeOf) {
      const ok = this.api.execute('add-hole', { id: s.holeOf, ring: points });
      if (!ok) this.api.emit({ type: 'invalid-hole', id: s.holeOf });
      return;
    }
    const cls = this.api.view().activeClass;
    if (!cls) {
      this.api.emit({ type: 'needs-class', tool: 'polygon' });
      return;
    }
    const id = this.api.newId();
    this.api.execute('create', { annotation: { id, type: 'polygon', class: cls, points, holes: [], attributes: [] } });
    // Selected at once, so 1-9 or C relabels it without a click (issue 33).
    this.api.setSelection([id]);
    this.api.emit({ type: 'created', id });
  }

  onKeyDown(e: ToolKeyEvent): boolean {
    const s = this.state;
    if (s.k !== 'drawing') return false;
    switch (e.key) {
      case 'Escape':
        this.cancel();
        return true;
      case 'Enter':
        this.close();
        return true;
      case 'Backspace':
        s.points.pop();
        if (s.points.length === 0) this.cancel();
        else this.publish();
        return true;
      default:
        return false;
    }
  }

  cancel(): void {
    this.state = { k: 'idle' };
    this.api.setDrawing(null);
  }
}
