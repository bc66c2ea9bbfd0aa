// Issue 35, the fused path: while the zoom holds (a pan, and frames at rest after it), the masks
// and shapes are drawn once into a texture at the view's device pixels (the view and a margin, clipped to
// where shapes are) and composited in the image's own pass, one texture fetch more per pixel,
// instead of every shape drawn again over the image each frame. Software WebGL pays for every
// primitive and fragment of the shapes' passes (the dots alone cost what the image costs at 100k);
// the texture costs them once per change.
//
// The texture is kept for one key (zoom, pixel ratio, size, the scene's and state's generation,
// transparency, outline width); a pan reuses it while the shapes in view stay inside it. It is
// sampled texel for texel (nearest), so a fused frame's camera is the texture's moved by whole
// device pixels: a pan by a fraction of a pixel is drawn up to half a device pixel off the
// engine's camera (image, shapes and overlay together), never blurred.
import type { Framebuffer2D, Regl, Texture2D } from 'regl';
import type { CameraState } from '../engine';

/** x0, y0, x1, y1 in device px from the top-left of the view the texture was drawn for. */
export type DeviceRect = [number, number, number, number];

/** The share of the view's width and height the texture reaches past each side: a pan reuses it until the view leaves it. */
const MARGIN = 0.25;

/** What a fused frame needs: its camera, the texture and where the view's pixels fall in it. */
export interface FusedFrame {
  cam: CameraState;
  tex: Texture2D;
  /** A fragment's texel: (gl_FragCoord.xy + at.xy) * at.zw (WebGL's rows bottom-up in both). */
  at: [number, number, number, number];
  /** The texture's rect in this frame's device px (y down). */
  region: DeviceRect;
}

/** The draw commands a fused frame uses (programs.ts). */
export interface FusedDraws {
  image: (quads: object[]) => void;
  imageFused: (quads: object[]) => void;
  shapesTexture: (rects: object[]) => void;
}

/** Where the cells' shapes are, in device px from the view's top-left, grown by the widest outline, halo or marker (12 CSS px, as the cells' culling). */
export function shapesRect(cells: Map<number, { bounds: number[] }>, camera: CameraState, dpr: number): DeviceRect {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const { bounds: b } of cells.values()) {
    x0 = Math.min(x0, b[0]!);
    y0 = Math.min(y0, b[1]!);
    x1 = Math.max(x1, b[2]!);
    y1 = Math.max(y1, b[3]!);
  }
  const { x, y, scale } = camera, pad = 12 * dpr;
  return [(x0 * scale + x) * dpr - pad, (y0 * scale + y) * dpr - pad, (x1 * scale + x) * dpr + pad, (y1 * scale + y) * dpr + pad];
}

interface Held {
  key: string;
  cam: CameraState;
  region: DeviceRect;
  /** Where the shapes are (their bounds grown by the widest outline or marker), in the same px. */
  shapes: DeviceRect;
}

export class FusedLayer {
  private readonly fb: Framebuffer2D;
  private readonly tex: Texture2D;
  private held: Held | null = null;
  /** The last frame's key and camera position: a frame with the same key and another position is panning. */
  private lastKey = '';
  private lastX = NaN;
  private lastY = NaN;
  /** The programs' uniforms of the frame being drawn (programs.ts reads them). */
  readonly uniforms: { tex: Texture2D | null; at: number[] } = { tex: null, at: [0, 0, 1, 1] };
  /** Textures drawn, and frames composited from one (stats). */
  renders = 0;
  frames = 0;

  constructor(private readonly regl: Regl, private readonly maxSize: number) {
    this.tex = regl.texture({ width: 1, height: 1, min: 'nearest', mag: 'nearest', wrapS: 'clamp', wrapT: 'clamp' });
    this.fb = regl.framebuffer({ color: this.tex, depthStencil: false });
  }

  /**
   * This frame's fused draw, or null to draw it directly: the kept texture moved with the pan, else
   * a new one when the camera's position and nothing else changed since the last frame (a pan;
   * `key` holds the rest: zoom, the scene's generation, display) and `canBuild` (no level or mask
   * still building). A frame at rest after a change is drawn directly: frames at rest come one or
   * two at a time (tiles arriving after a zoom step), too few to pay for the texture's margin.
   * `usable`: nothing is drawn between the shapes' passes that the texture would leave out.
   */
  frame(key: string, camera: CameraState, dpr: number, width: number, height: number, usable: boolean, canBuild: boolean, cells: Map<number, { bounds: number[] }>, draw: (cam: CameraState, width: number, height: number) => void): FusedFrame | null {
    const wd = width * dpr, hd = height * dpr;
    key = `${key}|${wd}|${hd}`;
    const panning = key === this.lastKey && (camera.x !== this.lastX || camera.y !== this.lastY);
    [this.lastKey, this.lastX, this.lastY] = [key, camera.x, camera.y];
    // a drawing buffer off whole device px would stretch the texture's texels over the view's
    if (!usable || !Number.isInteger(wd) || !Number.isInteger(hd)) return null;
    const kept = this.reuse(key, camera, dpr, wd, hd);
    if (kept || !panning || !canBuild) return kept;
    return this.build(key, camera, dpr, wd, hd, shapesRect(cells, camera, dpr), draw);
  }

  /**
   * Draws a fused frame (the bound target cleared to the background): the image's quads with the
   * texture composited in their pass, and the texture alone over the rest of the view (shapes'
   * halos and markers past the image's edges). `image`: the image's size, null when it has no
   * quads or tiles still missing in view (then the image is drawn as usual and the texture over it).
   */
  composite(f: FusedFrame, camera: CameraState, dpr: number, width: number, height: number, image: { width: number; height: number } | null, quads: object[], draw: FusedDraws): void {
    this.uniforms.tex = f.tex;
    this.uniforms.at = f.at;
    const img = (px: number, c: number) => (px / dpr - c) / camera.scale;
    const X0 = img(Math.max(0, f.region[0]), camera.x), Y0 = img(Math.max(0, f.region[1]), camera.y);
    const X1 = img(Math.min(width * dpr, f.region[2]), camera.x), Y1 = img(Math.min(height * dpr, f.region[3]), camera.y);
    const rects: { rect: number[] }[] = [];
    const push = (x0: number, y0: number, x1: number, y1: number) => {
      if (x1 > x0 && y1 > y0) rects.push({ rect: [x0, y0, x1 - x0, y1 - y0] });
    };
    if (!image) {
      if (quads.length) draw.image(quads);
      push(X0, Y0, X1, Y1);
      if (rects.length) draw.shapesTexture(rects);
      return;
    }
    const { width: W, height: H } = image;
    push(X0, Y0, X1, Math.min(Y1, 0));
    push(X0, Math.max(Y0, H), X1, Y1);
    push(X0, Math.max(Y0, 0), Math.min(X1, 0), Math.min(Y1, H));
    push(Math.max(X0, W), Math.max(Y0, 0), X1, Math.min(Y1, H));
    // the edges' rects first: the image's opaque pass wins a pixel both would cover
    if (rects.length) draw.shapesTexture(rects);
    draw.imageFused(quads);
  }

  /** The kept texture's frame at `camera` (moved by whole device px), or null when its key changed or the view's shapes leave it. */
  reuse(key: string, camera: CameraState, dpr: number, wd: number, hd: number): FusedFrame | null {
    const h = this.held;
    if (!h || h.key !== key) return null;
    const dx = Math.round((camera.x - h.cam.x) * dpr), dy = Math.round((camera.y - h.cam.y) * dpr);
    // the view in the texture's px, clipped to the shapes, must lie inside the texture
    const x0 = Math.max(-dx, h.shapes[0]), y0 = Math.max(-dy, h.shapes[1]);
    const x1 = Math.min(wd - dx, h.shapes[2]), y1 = Math.min(hd - dy, h.shapes[3]);
    const inside = x0 >= h.region[0] && y0 >= h.region[1] && x1 <= h.region[2] && y1 <= h.region[3];
    if (x0 < x1 && y0 < y1 && !inside) return null;
    return this.frameAt(h, dx, dy, dpr, hd);
  }

  /**
   * Draws the texture for the view at `camera` (`shapes`: where shapes are, device px of this
   * view) through `draw` (the masks and shapes' passes with the camera and CSS size given, into
   * the bound target), keeps it under `key` and returns its frame; null if the view is too large.
   */
  build(key: string, camera: CameraState, dpr: number, wd: number, hd: number, shapes: DeviceRect, draw: (cam: CameraState, width: number, height: number) => void): FusedFrame | null {
    if (wd > this.maxSize || hd > this.maxSize) return null;
    const mx = Math.min(Math.round(wd * MARGIN), Math.floor((this.maxSize - wd) / 2)), my = Math.min(Math.round(hd * MARGIN), Math.floor((this.maxSize - hd) / 2));
    const s: DeviceRect = [Math.floor(shapes[0]), Math.floor(shapes[1]), Math.ceil(shapes[2]), Math.ceil(shapes[3])];
    let region: DeviceRect = [Math.max(-mx, s[0]), Math.max(-my, s[1]), Math.min(wd + mx, s[2]), Math.min(hd + my, s[3])];
    if (region[0] >= region[2] || region[1] >= region[3]) region = [0, 0, 1, 1]; // no shape near: an empty texel
    const [rx0, ry0, rx1, ry1] = region, tw = rx1 - rx0, th = ry1 - ry0;
    this.fb.resize(tw, th);
    this.fb.use(() => {
      this.regl.clear({ color: [0, 0, 0, 0] });
      draw({ scale: camera.scale, x: camera.x - rx0 / dpr, y: camera.y - ry0 / dpr }, tw / dpr, th / dpr);
    });
    this.held = { key, cam: { ...camera }, region, shapes: s };
    this.renders++;
    return this.frameAt(this.held, 0, 0, dpr, hd);
  }

  /** Draws each of its programs once (into the bound 1 x 1 warm-up target): software WebGL compiles a program at its first draw (10-20 ms), else the first pan frame's. */
  warm(draw: FusedDraws): void {
    this.uniforms.tex = this.tex;
    const rect = [-1e7, -1e7, 2e7, 2e7];
    draw.imageFused([{ tex: this.tex, rect, uv: [0, 0, 1, 1] }]);
    draw.shapesTexture([{ rect }]);
  }

  private frameAt(h: Held, dx: number, dy: number, dpr: number, hd: number): FusedFrame {
    const [rx0, ry0, rx1, ry1] = h.region, tw = rx1 - rx0, th = ry1 - ry0;
    this.frames++;
    // A view px (x, y down) is the texture's px (x - dx - rx0, y - dy - ry0); WebGL counts rows up
    // from the bottom in both, so the row is th - (hd - fragY - dy - ry0).
    return {
      cam: { scale: h.cam.scale, x: h.cam.x + dx / dpr, y: h.cam.y + dy / dpr },
      tex: this.tex,
      at: [-dx - rx0, th - hd + dy + ry0, 1 / tw, 1 / th],
      region: [rx0 + dx, ry0 + dy, rx1 + dx, ry1 + dy],
    };
  }

  bytes(): number {
    return this.held ? (this.held.region[2] - this.held.region[0]) * (this.held.region[3] - this.held.region[1]) * 4 : 0;
  }

  dispose(): void {
    this.fb.destroy();
  }
}
