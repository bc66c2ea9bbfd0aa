// Box tool. Press and drag past 10 screen px: the box follows the drag and is made on release.
// Press and release without moving that far: click mode, the box follows the pointer and the
// next click sets the opposite corner. Boxes under 10 x 10 image px are discarded ('too-small').
import { rectFromCorners } from '../../model/geometry';
import { MIN_BOX_SIZE } from '../../model/types';
import type { Tool, ToolApi, ToolKeyEvent, ToolPointerEvent } from '../types';

/** Screen distance that turns a press into a drag (spec: "click-to-drag switch over 10 px"). */
export const CLICK_DRAG_DISTANCE = 10;

type State =
  | { k: 'idle' }
  | { k: 'pressed'; x: number; y: number; sx: number; sy: number }
  | { k: 'dragging'; x: number; y: number }
  | { k: 'clicked'; x: number; y: number };

export class BoxTool implements Tool {
  readonly id = 'box' as const;
  private state: State = { k: 'idle' };

  constructor(private readonly api: ToolApi) {}

  isBusy(): boolean {
    return this.state.k !== 'idle';
  }

  onPointerDown(e: ToolPointerEvent): void {
    if (e.button !== 0) return;
    const [x, y] = this.api.clampToImage(e.x, e.y);
    if (this.state.k === 'clicked') return this.finish(x, y);
    if (this.state.k !== 'idle') return;
    if (!this.api.view().activeClass) {
      this.api.emit({ type: 'needs-class', tool: 'box' });
      return;
    }
    this.state = { k: 'pressed', x, y, sx: e.sx, sy: e.sy };
    this.api.setDrawing({ kind: 'box', rect: { x, y, width: 0, height: 0 } });
  }

  onPointerMove(e: ToolPointerEvent): void {
    const s = this.state;
    if (s.k === 'idle') return;
    if (s.k === 'pressed' && Math.hypot(e.sx - s.sx, e.sy - s.sy) > CLICK_DRAG_DISTANCE) {
      this.state = { k: 'dragging', x: s.x, y: s.y };
    }
    const [x, y] = this.api.clampToImage(e.x, e.y);
    this.api.setDrawing({ kind: 'box', rect: rectFromCorners(s.x, s.y, x, y) });
  }

  onPointerUp(e: ToolPointerEvent): void {
    const s = this.state;
    if (s.k === 'pressed') this.state = { k: 'clicked', x: s.x, y: s.y };
    else if (s.k === 'dragging') {
      const [x, y] = this.api.clampToImage(e.x, e.y);
      this.finish(x, y);
    }
  }

  private finish(x: number, y: number): void {
    const s = this.state;
    this.cancel();
    if (s.k === 'idle' || s.k === 'pressed') return;
    const cls = this.api.view().activeClass;
    if (!cls) {
      this.api.emit({ type: 'needs-class', tool: 'box' });
      return;
    }
    const rect = rectFromCorners(s.x, s.y, x, y);
    if (rect.width < MIN_BOX_SIZE || rect.height < MIN_BOX_SIZE) {
      this.api.emit({ type: 'too-small', tool: 'box' });
      return;
    }
    const id = this.api.newId();
    this.api.execute('create', { annotation: { id, type: 'box', class: cls, ...rect, attributes: [] } });
    // Selected at once, so 1-9 or C relabels it without a click (issue 33).
    this.api.setSelection([id]);
    this.api.emit({ type: 'created', id });
  }

  onDoubleClick(): void {}

  onKeyDown(e: ToolKeyEvent): boolean {
    if (e.key === 'Escape' && this.isBusy()) {
      this.cancel();
      return true;
    }
    return false;
  }

  cancel(): void {
    this.state = { k: 'idle' };
    this.api.setDrawing(null);
  }
}
