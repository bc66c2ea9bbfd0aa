// The view transform: screen = image * scale + (x, y), in CSS pixels of the canvas.
import type { Bounds } from './model/geometry';

export const MIN_SCALE = 0.1;
export const MAX_SCALE = 10;
export const ZOOM_IN = 1.1;
export const ZOOM_OUT = 0.9;
/** Wheel delta (in CSS pixels) of one mouse-wheel notch, which zooms by ZOOM_IN. */
export const WHEEL_NOTCH = 100;
/** The most one wheel event may zoom by, either way: a merged burst or a page-mode delta stays a few notches. */
export const WHEEL_MAX_NOTCHES = 5;
export const PAN_STEP = 50;
export const FIT_MARGIN = 20;

export interface CameraState {
  readonly x: number;
  readonly y: number;
  readonly scale: number;
}

export interface Size {
  readonly width: number;
  readonly height: number;
}

/** The scale within `min` (MIN_SCALE, or an image's own floor: minScaleFor) and MAX_SCALE. */
export const clampScale = (s: number, min = MIN_SCALE) => Math.min(MAX_SCALE, Math.max(min, s));

/** An image point clamped to an image of `size` (unchanged when the size is not known). */
export function clampToSize(size: Size | null, x: number, y: number): [number, number] {
  if (!size) return [x, y];
  return [Math.min(size.width, Math.max(0, x)), Math.min(size.height, Math.max(0, y))];
}

export function screenToImage(c: CameraState, sx: number, sy: number): [number, number] {
  return [(sx - c.x) / c.scale, (sy - c.y) / c.scale];
}

export function imageToScreen(c: CameraState, ix: number, iy: number): [number, number] {
  return [ix * c.scale + c.x, iy * c.scale + c.y];
}

/** Scales by `factor` about a screen point, keeping the image point under it fixed; never below `min`. */
export function zoomAt(c: CameraState, sx: number, sy: number, factor: number, min = MIN_SCALE): CameraState {
  const scale = clampScale(c.scale * factor, min);
  const [ix, iy] = screenToImage(c, sx, sy);
  return { scale, x: sx - ix * scale, y: sy - iy * scale };
}

export function panBy(c: CameraState, dx: number, dy: number): CameraState {
  return { ...c, x: c.x + dx, y: c.y + dy };
}

/** Screen room kept clear at each side of the viewport (a bar laid over the canvas), in CSS pixels. */
export interface Insets {
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly left: number;
}

export const NO_INSETS: Insets = { top: 0, right: 0, bottom: 0, left: 0 };

/**
 * Whole image visible and centred, with `margin` screen pixels around it; `reserve` keeps room
 * clear at the sides (at least the margin each), so a bar over the canvas never covers the image.
 */
export function fitToScreen(viewport: Size, image: Size, margin = FIT_MARGIN, reserve: Insets = NO_INSETS): CameraState {
  if (image.width <= 0 || image.height <= 0 || viewport.width <= 0 || viewport.height <= 0) return { x: 0, y: 0, scale: 1 };
  const { left, top, availW, availH } = fitRoom(viewport, margin, reserve);
  const fit = Math.min(availW / image.width, availH / image.height);
  const scale = clampScale(fit, Math.min(MIN_SCALE, fit));
  return { scale, x: left + (availW - image.width * scale) / 2, y: top + (availH - image.height * scale) / 2 };
}

/** The viewport's room for the image: inside the margin, or the reserve where it is larger. */
function fitRoom(viewport: Size, margin: number, reserve: Insets) {
  const top = Math.max(margin, reserve.top), bottom = Math.max(margin, reserve.bottom);
  const left = Math.max(margin, reserve.left), right = Math.max(margin, reserve.right);
  return { left, top, availW: Math.max(1, viewport.width - left - right), availH: Math.max(1, viewport.height - top - bottom) };
}

/**
 * The least scale a view of `image` may take: MIN_SCALE (the spec's 10%), or the fit's own scale
 * where that is less. At 10% an image over about 8,000 px does not fit a laptop's canvas (the
 * 20,000 x 20,000 ones we promise fit at about 4%), and clamped there it could never be seen whole.
 */
export function minScaleFor(viewport: Size, image: Size | null, margin = FIT_MARGIN, reserve: Insets = NO_INSETS): number {
  if (!image || image.width <= 0 || image.height <= 0 || viewport.width <= 0 || viewport.height <= 0) return MIN_SCALE;
  const { availW, availH } = fitRoom(viewport, margin, reserve);
  return Math.min(MIN_SCALE, availW / image.width, availH / image.height);
}

export const sameCamera = (a: CameraState, b: CameraState) => a.x === b.x && a.y === b.y && a.scale === b.scale;

/** The image-space rectangle the viewport shows. */
export function visibleBounds(c: CameraState, viewport: Size): Bounds {
  const [minX, minY] = screenToImage(c, 0, 0);
  const [maxX, maxY] = screenToImage(c, viewport.width, viewport.height);
  return { minX, minY, maxX, maxY };
}

/**
 * Brings image bounds into view: unchanged if already fully visible; otherwise centred on it,
 * zooming out (never in) just enough for it to fit with the margin.
 */
export function bringIntoView(c: CameraState, viewport: Size, b: Bounds, margin = FIT_MARGIN, min = MIN_SCALE): CameraState {
  const v = visibleBounds(c, viewport);
  if (b.minX >= v.minX && b.maxX <= v.maxX && b.minY >= v.minY && b.maxY <= v.maxY) return c;
  return centreOn(c, viewport, b, margin, min);
}

/** Centres the view on image bounds, zooming out (never in, nor below `min`) just enough for them to fit with the margin. */
export function centreOn(c: CameraState, viewport: Size, b: Bounds, margin = FIT_MARGIN, min = MIN_SCALE): CameraState {
  const w = b.maxX - b.minX, h = b.maxY - b.minY;
  const availW = Math.max(1, viewport.width - 2 * margin), availH = Math.max(1, viewport.height - 2 * margin);
  let scale = c.scale;
  if (w * scale > availW || h * scale > availH) scale = clampScale(Math.min(availW / Math.max(w, 1e-9), availH / Math.max(h, 1e-9)), min);
  const cx = (b.minX + b.maxX) / 2, cy = (b.minY + b.maxY) / 2;
  return { scale, x: viewport.width / 2 - cx * scale, y: viewport.height / 2 - cy * scale };
}
