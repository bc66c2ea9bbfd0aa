// Polyline tool. Click to add points; Enter or a double-click finishes once there are at least
// 2 points. Backspace removes the last point, Escape cancels.
import { MIN_POLYLINE_POINTS, type Point } from '../../model/types';
import { MIN_POINT_SPACING } from '../polygon';
import type { Tool, ToolApi, ToolKeyEvent, ToolPointerEvent } from '../types';

type State = { k: 'idle' } | { k: 'drawing'; points: Point[]; cursor: Point | null };

export class PolylineTool implements Tool {
  readonly id = 'polyline' as const;
  private state: State = { k: 'idle' };

  constructor(private readonly api: ToolApi) {}

  isBusy(): boolean {
    return this.state.k !== 'idle';
  }

  private publish(): void {
    const s = this.state;
    this.api.setDrawing(s.k === 'drawing' ? { kind: 'polyline', points: s.points.slice(), cursor: s.cursor } : null);
  }

  onPointerDown(e: ToolPointerEvent): void {
    if (e.button !== 0) return;
    const [x, y] = this.api.clampToImage(e.x, e.y);
    const s = this.state;
    if (s.k === 'idle') {
      if (!this.api.view().activeClass) {
        this.api.emit({ type: 'needs-class', tool: 'polyline' });
        return;
      }
      this.state = { k: 'drawing', points: [[x, y]], cursor: [x, y] };
      return this.publish();
    }
    // The two clicks of a double-click land on the same spot: keep one point.
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
    this.publish();
  }

  onPointerUp(): void {}

  onDoubleClick(): void {
    this.finish();
  }

  finish(): void {
    const s = this.state;
    if (s.k !== 'drawing' || s.points.length < MIN_POLYLINE_POINTS) return;
    const points = s.points.slice();
    this.cancel();
    const cls = this.api.view().activeClass;
    if (!cls) {
      this.api.emit({ type: 'needs-class', tool: 'polyline' });
      return;
    }
    const id = this.api.newId();
    this.api.execute('create', { annotation: { id, type: 'polyline', class: cls, points, attributes: [] } });
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
        this.finish();
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
