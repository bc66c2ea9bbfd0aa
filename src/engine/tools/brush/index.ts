// Brush and eraser for masks (issue 33). A stroke paints (or erases) a disc swept along the
// pointer's path into the selected mask, or starts a new mask of the active class. The pixels
// are set by the wasm kernels the app plugged in (editor.masks.setOps) on the mask's runs, one
// pointer move at a time, so the mask is redrawn as the stroke goes; the whole stroke is one
// history gesture, one undo step. Size: `size` screen pixels across (`[` and `]`), so the brush
// feels the same at any zoom. The brush with Shift erases, the eraser with Shift paints.
import { countsToString, rleArea, rleBBox } from '../../model/rle';
import type { Point, Rle, SegmentationAnnotation } from '../../model/types';
import type { Tool, ToolApi, ToolKeyEvent, ToolPointerEvent } from '../types';
import type { BrushPreview, BrushSettings, MaskOps } from './types';

interface Stroke {
  readonly id: string;
  readonly cls: string;
  readonly erase: boolean;
  /** The mask as the stroke has left it (numeric counts while painting). */
  rle: Rle;
  /** False until the first pixel of a new mask is painted (then it is created). */
  exists: boolean;
  /** The mask's counts were a compressed string before the stroke: so they are again after it. */
  readonly compressed: boolean;
  last: Point;
  readonly created: boolean;
}

export class BrushTool implements Tool {
  private stroke: Stroke | null = null;
  private cursor: Point | null = null;
  private shift = false;

  constructor(
    readonly id: 'brush' | 'eraser',
    private readonly api: ToolApi,
    private readonly settings: BrushSettings,
  ) {}

  isBusy(): boolean {
    return this.stroke !== null;
  }

  /** The brush's radius in image pixels at zoom `scale`. */
  radius(scale: number): number {
    return this.settings.size / 2 / scale;
  }

  private erases(shift: boolean): boolean {
    return (this.id === 'eraser') !== shift;
  }

  private preview(scale: number): void {
    const erase = this.stroke ? this.stroke.erase : this.erases(this.shift);
    const d: BrushPreview = { kind: 'brush', cursor: this.cursor, size: this.settings.size, radius: this.radius(scale), erase };
    this.api.setDrawing(d);
  }

  onPointerDown(e: ToolPointerEvent): void {
    this.cursor = [e.x, e.y];
    this.shift = !!e.shiftKey;
    if (e.button !== 0 || this.stroke || this.api.view().readOnly) return;
    const ops = this.api.maskOps();
    const size = this.api.imageSize();
    if (!ops || !size) return;
    const erase = this.erases(!!e.shiftKey);
    const target = this.target(e, erase);
    if (!target && erase) return;
    const cls = target?.class ?? this.api.view().activeClass;
    if (!cls) {
      this.api.emit({ type: 'needs-class', tool: this.id });
      return;
    }
    const rle: Rle = target?.rle ?? { size: [size.height, size.width], counts: [size.height * size.width] };
    this.stroke = {
      id: target?.id ?? this.api.newId(),
      cls,
      erase,
      rle,
      exists: !!target,
      compressed: typeof rle.counts === 'string',
      last: [e.x, e.y],
      created: !target,
    };
    this.api.begin(erase ? 'Erase' : 'Brush');
    this.paint(ops, [[e.x, e.y]], e.scale);
    this.preview(e.scale);
  }

  /** The mask a stroke goes into: the one selected mask; for the eraser, else the mask under the pointer. */
  private target(e: ToolPointerEvent, erase: boolean): SegmentationAnnotation | null {
    const view = this.api.view();
    if (view.selected.size === 1) {
      const a = this.api.get([...view.selected][0]!);
      if (a?.type === 'segmentation') return a;
    }
    if (!erase) return null;
    const hit = this.api.hitTest(e.x, e.y, 0);
    const a = hit ? this.api.get(hit) : undefined;
    return a?.type === 'segmentation' ? a : null;
  }

  private paint(ops: MaskOps, points: Point[], scale: number): void {
    const s = this.stroke!;
    const counts = Array.from(ops.paintStroke(s.rle, points, this.radius(scale), s.erase ? 'erase' : 'paint'));
    s.rle = { size: s.rle.size, counts };
    if (s.exists) {
      this.api.execute('set-mask', { id: s.id, rle: s.rle });
    } else if (rleArea(s.rle) > 0) {
      const annotation: SegmentationAnnotation = { id: s.id, type: 'segmentation', class: s.cls, rle: s.rle, ...rleBBox(s.rle), attributes: [] };
      this.api.execute('create', { annotation });
      s.exists = true;
    }
  }

  onPointerMove(e: ToolPointerEvent): void {
    this.cursor = [e.x, e.y];
    this.shift = !!e.shiftKey;
    const s = this.stroke;
    const ops = this.api.maskOps();
    if (s && ops && (e.x !== s.last[0] || e.y !== s.last[1])) {
      this.paint(ops, [s.last, [e.x, e.y]], e.scale);
      s.last = [e.x, e.y];
    }
    this.preview(e.scale);
  }

  onPointerUp(e: ToolPointerEvent): void {
    const s = this.stroke;
    if (!s) return;
    this.stroke = null;
    if (!s.exists) {
      this.api.rollback();
    } else if (rleArea(s.rle) === 0) {
      this.api.execute('delete', { ids: [s.id] }); // erased to nothing
      this.api.commit();
    } else {
      // Stored masks keep the compressed form they came in; new ones are compressed too.
      if (s.compressed || s.created) this.api.execute('set-mask', { id: s.id, rle: { size: s.rle.size, counts: countsToString(s.rle.counts as number[]) } });
      this.api.commit();
      if (s.created) {
        this.api.setSelection([s.id]);
        this.api.emit({ type: 'created', id: s.id });
      }
    }
    this.preview(e.scale);
  }

  onDoubleClick(): void {}

  onKeyDown(e: ToolKeyEvent): boolean {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    if (e.key === '[' || e.key === ']') {
      this.settings.step(e.key === ']' ? 1 : -1);
      const d = this.api.view().drawing;
      if (d?.kind === 'brush') this.api.setDrawing({ ...d, size: this.settings.size, radius: (d.radius * this.settings.size) / d.size });
      return true;
    }
    if (e.key === 'Escape' && this.stroke) {
      this.cancel();
      return true;
    }
    return false;
  }

  cancel(): void {
    if (this.stroke) {
      this.stroke = null;
      this.api.rollback();
    }
    this.cursor = null;
    this.api.setDrawing(null);
  }
}

export { BrushSettings, BRUSH_SIZE_DEFAULT, BRUSH_SIZE_MAX, BRUSH_SIZE_MIN, type BrushPreview, type MaskOps } from './types';
export { MaskCommands, maskActionApplies, runMaskAction, type MaskAction } from './mask-actions';
