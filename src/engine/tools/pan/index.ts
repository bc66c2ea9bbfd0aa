// Pan (hand) tool: a primary-button drag anywhere moves the view.
import type { Tool, ToolApi, ToolPointerEvent } from '../types';

export class PanTool implements Tool {
  readonly id = 'pan' as const;
  private last: { sx: number; sy: number } | null = null;

  constructor(private readonly api: ToolApi) {}

  isBusy(): boolean {
    return this.last !== null;
  }

  onPointerDown(e: ToolPointerEvent): void {
    if (e.button === 0) this.last = { sx: e.sx, sy: e.sy };
  }

  onPointerMove(e: ToolPointerEvent): void {
    if (!this.last) return;
    this.api.panBy(e.sx - this.last.sx, e.sy - this.last.sy);
    this.last = { sx: e.sx, sy: e.sy };
  }

  onPointerUp(): void {
    this.last = null;
  }

  onDoubleClick(): void {}
  onKeyDown(): boolean {
    return false;
  }
  cancel(): void {
    this.last = null;
  }
}
