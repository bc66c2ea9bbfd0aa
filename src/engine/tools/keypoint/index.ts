// Keypoint tool: each click places one keypoint with the active class.
import type { Tool, ToolApi, ToolPointerEvent } from '../types';

export class KeypointTool implements Tool {
  readonly id = 'keypoint' as const;

  constructor(private readonly api: ToolApi) {}

  isBusy(): boolean {
    return false;
  }

  onPointerDown(e: ToolPointerEvent): void {
    if (e.button !== 0) return;
    const cls = this.api.view().activeClass;
    if (!cls) {
      this.api.emit({ type: 'needs-class', tool: 'keypoint' });
      return;
    }
    const [x, y] = this.api.clampToImage(e.x, e.y);
    const id = this.api.newId();
    this.api.execute('create', { annotation: { id, type: 'keypoint', class: cls, x, y, attributes: [] } });
    // Selected at once, so 1-9 or C relabels it without a click (issue 33).
    this.api.setSelection([id]);
    this.api.emit({ type: 'created', id });
  }

  onPointerMove(): void {}
  onPointerUp(): void {}
  onDoubleClick(): void {}
  onKeyDown(): boolean {
    return false;
  }
  cancel(): void {}
}
