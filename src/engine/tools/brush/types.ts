// What the brush, the eraser and the mask commands need from outside the engine: the wasm mask
// kernels (src/kernels), which the app plugs in with editor.masks.setOps. The engine never loads
// them itself (it imports nothing but the contract and a few libraries).
import type { Point, Rle } from '../../model/types';

export interface MaskPolygonOut {
  path: [number, number][];
  holes: [number, number][][];
}

/** The kernels' mask edits, as `Kernels` of src/kernels has them. */
export interface MaskOps {
  paintStroke(rle: Rle, points: readonly Point[], radius: number, mode?: 'paint' | 'erase'): ArrayLike<number>;
  fillHoles(rle: Rle): ArrayLike<number>;
  removeIslands(rle: Rle, minArea: number): ArrayLike<number>;
  maskToPolygons(rle: Rle, options?: { tolerance?: number }): MaskPolygonOut[];
  polygonsToRle(polygons: readonly { path: readonly Point[]; holes?: readonly (readonly Point[])[] }[], height: number, width: number): ArrayLike<number>;
}

/** Brush size in screen pixels (the diameter), so it feels the same at any zoom. */
export const BRUSH_SIZE_DEFAULT = 24;
export const BRUSH_SIZE_MIN = 2;
export const BRUSH_SIZE_MAX = 400;
/** `]` grows and `[` shrinks the size by this factor (at least one pixel). */
export const BRUSH_SIZE_STEP = 1.25;

/** The size the brush and the eraser share. */
export class BrushSettings {
  size = BRUSH_SIZE_DEFAULT;

  /** Steps the size up (+1) or down (-1); returns the new size. */
  step(direction: 1 | -1): number {
    const next = direction > 0 ? Math.max(this.size + 1, Math.round(this.size * BRUSH_SIZE_STEP)) : Math.min(this.size - 1, Math.round(this.size / BRUSH_SIZE_STEP));
    this.size = Math.min(BRUSH_SIZE_MAX, Math.max(BRUSH_SIZE_MIN, next));
    return this.size;
  }
}

/** The brush's preview: a circle of `size` screen pixels at the pointer (`radius` in image pixels). */
export interface BrushPreview {
  readonly kind: 'brush';
  readonly cursor: Point | null;
  readonly size: number;
  readonly radius: number;
  readonly erase: boolean;
}
