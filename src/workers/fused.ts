// Issue 35, the fused path: while the zoom holds (a pan, and frames at rest after it), the masks
// and shapes are drawn once into a texture at the view's device pixels (the view and a margin, clipped to
// where shapes are) and composited in the image's own pass, one texture fetch more per pixel,
// instead of every shape drawn again over the image each frame. Software WebGL pays for every
// primitive and fragment of the shapes' passes (the dots alone cost what the image costs at 100k);
// the texture costs them once per change.
//
// The texture is kept for one key (pixel ratio, size, the scene's and state's generation,
// transparency, outline width) and its zoom; a pan reuses it while the shapes in view stay inside
// it, sampled texel for texel, so a fused frame's camera is the texture's moved by whole device
// pixels: a pan by a fraction of a pixel is drawn up to half a device pixel off the engine's camera
// (image, shapes and overlay together), never blurred.
//
// A zoom gesture (wheel, pinch: a new scale every frame) shows the kept texture scaled, as map and
// design tools do: a level of detail held for the gesture's frames, the image sharp under it. It
// is drawn again at the frame's zoom when the view's shapes leave it, the zoom has gone past
// MAX_STRETCH either way (blurred or aliased) or, zooming in, the new zoom draws its shapes in other
// forms (stale()), and once the zoom rests SETTLE_MS (no new scale),
// so the frame at rest is exact (as drawn directly) and the pans and zooms after it start from it.
import type { Framebuffer2D, Regl, Texture2D, Texture2DOptions } from 'regl';
import type { CameraState } from '../engine';
import { FULL, levelExp, wantedLevel, type Chunk } from './cells';

/** x0, y0, x1, y1 in device px from the top-left of the view the texture was drawn for. */
export type DeviceRect = [number, number, number, number];

/** The share of the view's width and height the texture reaches past each side: a pan reuses it until the view leaves it. */
const MARGIN = 0.25;
/** A zoom gesture shows the texture scaled by at most this either way (2: a texel over 2 x 2 px, or 2 x 2 texels in a px). */
const MAX_STRETCH = 2;
/** Zooming in past the forms a texture holds (stale()), it is shown scaled by at most this while the new zoom's levels are made; then drawn directly (stand-ins at their size). */
const STALE_STRETCH = Math.SQRT2;
/** The zoom rests when no frame brought a new scale for this long: then the texture is drawn again at it (exact). */
export const SETTLE_MS = 120;
/** Between frames, the next texture of a pan is drawn ahead this long at a time (each piece waited for on the GPU, so no frame pays for it). */
const AHEAD_SLICE_MS = 6;
/** A band drawn ahead is cut into pieces of about this many device px (a piece is the unit of a slice). */
const PIECE_PX = 96 * 1024;
/**
 * A texture drawn ahead of a pan covers this many next moves like the last one (a band that many
 * moves wide, drawn once every that many moves): it reaches that far past the view on the pan's
 * leading sides (at least a margin), a quarter margin on a side the pan does not move towards
 * (across it), and AHEAD_BEHIND margins behind. Each move uncovers its strip of the plane once,
 * whatever the texture's size; a band's own edges (its viewport grown by the widest dot, the
 * sub-cells it cuts) are paid once a band, so once every AHEAD_MOVES moves (bench/render: a 100k
 * pan step of a quarter of the view, with a band every move, drew about as many dots as a direct frame).
 */
const AHEAD_MOVES = 3;
/** Behind the first of those views, the texture drawn ahead keeps this share of the margin (a pan that turns back finds it drawn; what the held texture covers there is copied, not drawn). */
const AHEAD_BEHIND = 1;

/** What a fused frame needs: its camera, the texture and where the view's pixels fall in it. */
export interface FusedFrame {
  cam: CameraState;
  tex: Texture2D;
  /** A fragment's texel: (gl_FragCoord.xy + at.xy) * at.zw (WebGL's rows bottom-up in both). */
  at: [number, number, number, number];
  /** The texture's rect in this frame's device px (y down). */
  region: DeviceRect;
  /** Texel for texel (a pan, at rest), not scaled: sampled nearest, the same pixels as linear at texel centres. */
  exact: boolean;
}

/** The draw commands a fused frame uses (programs.ts). */
export interface FusedDraws {
  image: (quads: object[]) => void;
  imageFused: (quads: object[]) => void;
  shapesTexture: (rects: object[]) => void;
}

/** Where the cells' shapes are, in device px from the view's top-left, grown by the widest outline, halo or marker (12 CSS px, as the cells' culling). */
export function shapesRect(cells: Map<number, Pick<Chunk, 'bounds'>>, camera: CameraState, dpr: number): DeviceRect {
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

/** What the renderer gives the fused layer. */
export interface FusedHost {
  /** Asks for a frame (the frame at rest once a zoom settles). */
  requestFrame(): void;
  /** A level or mask is still being made (a texture drawn now would hold stand-ins). */
  building(): boolean;
  /** The cells, for where the shapes are and which are drawn in a lighter form (dots, compact polygons) at a zoom. */
  cells: Map<number, Pick<Chunk, 'bounds' | 'minExtent'>>;
  /** Draws the masks and shapes' passes with this camera and CSS size into the bound target; `inset`: CSS px at each edge scissored away (a band's grown viewport), where no dot or compact polygon needs drawing. */
  draw(cam: CameraState, width: number, height: number, inset?: number): void;
  /** Asks for the levels of detail the cells in view at this camera and CSS size want (made between frames), drawing nothing. */
  prepare(cam: CameraState, width: number, height: number): void;
  /** Work between frames ended (a texture drawn ahead): whoever waits for the renderer to be idle may go on. */
  settled(): void;
}

interface Held {
  /** The key without the zoom (the zoom is `cam.scale`) and the generation of the cells' levels. */
  key: string;
  lod: number;
  cam: CameraState;
  region: DeviceRect;
  /** Where the shapes are (their bounds grown by the widest outline or marker), in the same px. */
  shapes: DeviceRect;
  /** The half-octave level of detail it was drawn for (cells.ts), and whether some of its cells were still stand-ins then. */
  exp: number;
  partial: boolean;
}

/** A texture on the other target for a view moved from the held one's (scroll, ahead): what both cover copied, the bands still to draw (its px, y down). */
interface Next extends Held {
  bands: DeviceRect[];
  dpr: number;
  /** Sizes the target and copies the shared part into it: done with the first bands (between frames for a texture drawn ahead), then null. */
  start: (() => void) | null;
}

export class FusedLayer {
  /** Two targets: a pan past the held one's margin copies what they share into the other and draws only the rest (scroll). */
  private readonly fbs: [Framebuffer2D, Framebuffer2D];
  private readonly texs: [Texture2D, Texture2D];
  private cur = 0;
  private held: Held | null = null;
  /** A part of the texture drawn alone: the viewport (grown by the widest dot or marker, whose sprites are clipped by their centre) and the scissor. */
  private readonly band: (props: { vp: object; box: object }, body: () => void) => void;
  /** The last frame's key and camera: a frame with the same key and another scale is zooming, another position panning. */
  private lastKey = '';
  private lastScale = NaN;
  private lastX = NaN;
  private lastY = NaN;
  /** Armed by a zooming frame: until it fires, frames show the texture scaled. */
  private settleTimer: ReturnType<typeof setTimeout> | null = null;
  /** The zoom rested: the next frame that can draws the texture at its zoom. */
  private sharp = false;
  /** The programs' uniforms of the frame being drawn (programs.ts reads them). */
  readonly uniforms: { tex: Texture2D | null; at: number[] } = { tex: null, at: [0, 0, 1, 1] };
  /** Textures drawn, and frames composited from one (stats). */
  renders = 0;
  frames = 0;
  /** Frames that showed it scaled (a zoom gesture's). */
  scaledFrames = 0;
  /** Of the renders, those that copied the part they share with the one before in the frame that needed them (a pan past the margin). */
  scrolls = 0;
  /** Of the renders, those drawn ahead of a pan between frames (ahead()), and of these the ones a frame had to finish (the view reached them first). */
  aheads = 0;
  aheadsLate = 0;
  /** The next texture of a pan, drawn ahead on the other target between frames, and the timer of its next slice. */
  private next: Next | null = null;
  private aheadTimer: ReturnType<typeof setTimeout> | null = null;
  /**
   * How a texel-for-texel frame samples the texture: nearest by default. SwiftShader's linear filter
   * cost about 8 ms of a 10k pan frame's 37 (a third of the image pass) for the same pixels (profile:
   * bench/render/page/fused-profile.ts, which sets 'linear' to compare). A zoom's scaled frames sample linearly.
   */
  exactFilter: 'nearest' | 'linear' = 'nearest';
  /** A 1 px read's bytes (a piece drawn ahead waited for). */
  private readonly probe = new Uint8Array(4);
  /** Each target's filter as set (created linear). */
  private readonly filters: ('nearest' | 'linear')[] = ['linear', 'linear'];

  constructor(private readonly regl: Regl, private readonly maxSize: number, private readonly host: FusedHost) {
    // linear: a zoom gesture's frames sample it scaled (an exact frame sets nearest: filter())
    const tex = () => regl.texture({ width: 1, height: 1, min: 'linear', mag: 'linear', wrapS: 'clamp', wrapT: 'clamp' });
    this.texs = [tex(), tex()];
    this.fbs = [regl.framebuffer({ color: this.texs[0], depthStencil: false }), regl.framebuffer({ color: this.texs[1], depthStencil: false })];
    this.band = regl({ viewport: regl.prop<{ vp: object }, 'vp'>('vp'), scissor: { enable: true, box: regl.prop<{ box: object }, 'box'>('box') } }) as unknown as typeof this.band;
  }

  private get tex(): Texture2D {
    return this.texs[this.cur];
  }

  /**
   * This frame's fused draw, or null to draw it directly. `key` holds what the texture shows
   * besides the camera (the scene's generation, display), `lod` the generation of the cells' levels
   * (a level built in place of a stand-in: a zoom gesture's scaled texture is still good). Panning:
   * the kept texture moved with the pan, else a new one (what it shares with the kept one copied).
   * Zooming (the last frame's key, another scale) and until the zoom settles: the kept texture
   * scaled, else a new one at this zoom. Once it settles: the levels the new zoom wants are made
   * first (the scaled texture shown meanwhile), then a new texture at this zoom, drawn once.
   * Any other frame (at rest after a change) is drawn directly: frames at rest come one or two at a
   * time, too few to pay for the texture's margin.
   * `usable`: nothing is drawn between the shapes' passes that the texture would leave out.
   */
  frame(key: string, lod: number, camera: CameraState, dpr: number, width: number, height: number, usable: boolean): FusedFrame | null {
    const wd = width * dpr, hd = height * dpr;
    key = `${key}|${wd}|${hd}`;
    const same = key === this.lastKey, zooming = same && camera.scale !== this.lastScale;
    const panning = same && !zooming && (camera.x !== this.lastX || camera.y !== this.lastY);
    // the view's move over the texture since the last frame (device px): the next move is guessed alike (ahead())
    const moved: [number, number] = panning ? [(this.lastX - camera.x) * dpr, (this.lastY - camera.y) * dpr] : [0, 0];
    [this.lastKey, this.lastScale, this.lastX, this.lastY] = [key, camera.scale, camera.x, camera.y];
    if (zooming) this.armSettle();
    // a drawing buffer off whole device px would stretch the texture's texels over the view's
    if (!usable || !Number.isInteger(wd) || !Number.isInteger(hd)) {
      this.sharp = false;
      return null;
    }
    this.takeNext(key, lod, camera, dpr, wd, hd);
    const kept = this.reuse(key, lod, camera, dpr, wd, hd);
    if (kept) {
      this.sharp = false;
      if (panning) this.ahead(key, lod, kept.cam, moved, dpr, wd, hd);
      return kept;
    }
    const gesture = this.settleTimer !== null, { building } = this.host;
    const scaled = gesture || this.sharp ? this.scaled(key, camera, dpr, wd, hd) : null;
    const stale = gesture && !!scaled && this.stale(lod, camera, wd / dpr, hd / dpr);
    if (gesture && scaled && !stale) return scaled;
    if (!(gesture || this.sharp || panning)) return null;
    const interim = stale && camera.scale <= this.held!.cam.scale * STALE_STRETCH ? scaled : null;
    if (building()) return interim;
    const shapes = shapesRect(this.host.cells, camera, dpr);
    if (this.sharp || stale) {
      // at rest after a zoom, or zooming in past the kept texture's forms: the levels its texture
      // wants first (the scaled one shown meanwhile), so it is drawn once, without stand-ins
      const r = this.region(wd, hd, shapes, true), tw = r[2] - r[0], th = r[3] - r[1];
      this.host.prepare({ scale: camera.scale, x: camera.x - r[0] / dpr, y: camera.y - r[1] / dpr }, tw / dpr, th / dpr);
      if (building()) return this.sharp ? scaled : interim; // they ask for a frame when made
    }
    // No margin at rest after a zoom (a pan draws it as it scrolls: a zoom's levels for it were the
    // costliest part of the settle), nor zooming in (the gesture's next views lie inside this one).
    const tight = this.sharp || (gesture && !!this.held && camera.scale > this.held.cam.scale);
    const f = (panning && this.scroll(key, lod, camera, dpr, wd, hd)) || this.build(key, lod, camera, dpr, wd, hd, shapes, tight);
    // drawn with stand-ins for levels still being made: drawn again once they are (they ask for a frame)
    this.sharp = !gesture && building();
    if (panning && f) this.ahead(key, lod, f.cam, moved, dpr, wd, hd);
    return f;
  }

  /** True while a zoom has not settled or its frame at rest is still to be drawn (the renderer is not idle). */
  get settling(): boolean {
    return this.settleTimer !== null || this.sharp || (!!this.next && undrawn(this.next));
  }

  private armSettle(): void {
    if (this.settleTimer !== null) clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = null;
      this.sharp = true;
      this.host.requestFrame();
    }, SETTLE_MS);
  }

  /**
   * Draws a fused frame (the bound target cleared to the background): the image's quads with the
   * texture composited in their pass, and the texture alone over the rest of the view (shapes'
   * halos and markers past the image's edges). `image`: the image's size, null when it has no
   * quads or tiles still missing in view (then the image is drawn as usual and the texture over it).
   */
  composite(f: FusedFrame, camera: CameraState, dpr: number, width: number, height: number, image: { width: number; height: number } | null, quads: object[], draw: FusedDraws): void {
    this.filter(this.texs.indexOf(f.tex), f.exact ? this.exactFilter : 'linear');
    this.frames++;
    if (!f.exact) this.scaledFrames++;
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

  /** The kept texture's frame at `camera` (moved by whole device px), or null when its key or zoom changed or the view's shapes leave it. */
  reuse(key: string, lod: number, camera: CameraState, dpr: number, wd: number, hd: number): FusedFrame | null {
    const h = this.held;
    if (!h || h.key !== key || outdated(h, lod) || h.cam.scale !== camera.scale) return null;
    const dx = Math.round((camera.x - h.cam.x) * dpr), dy = Math.round((camera.y - h.cam.y) * dpr);
    if (!covers(h, 1, -dx, -dy, wd, hd)) return null;
    return this.frameAt(h, { scale: h.cam.scale, x: h.cam.x + dx / dpr, y: h.cam.y + dy / dpr }, 1, -dx, -dy, hd);
  }

  /** The kept texture scaled to `camera`'s zoom (a zoom gesture's frame), or null when its key changed, the zoom went past MAX_STRETCH or the view's shapes leave it. */
  scaled(key: string, camera: CameraState, dpr: number, wd: number, hd: number): FusedFrame | null {
    const h = this.held;
    if (!h || h.key !== key) return null;
    const k = h.cam.scale / camera.scale; // the texture's px per view px
    if (k > MAX_STRETCH || k < 1 / MAX_STRETCH) return null;
    const ox = (h.cam.x - camera.x * k) * dpr, oy = (h.cam.y - camera.y * k) * dpr;
    if (!covers(h, k, ox, oy, wd, hd)) return null;
    return this.frameAt(h, camera, k, ox, oy, hd);
  }

  /**
   * Draws the texture for the view at `camera` (`shapes`: where shapes are, device px of this
   * view) through `draw` (the masks and shapes' passes with the camera and CSS size given, into
   * the bound target), keeps it under `key` and returns its frame; null if the view is too large.
   */
  build(key: string, lod: number, camera: CameraState, dpr: number, wd: number, hd: number, shapes: DeviceRect, tight = false): FusedFrame | null {
    if (wd > this.maxSize || hd > this.maxSize) return null;
    this.dropNext();
    const s: DeviceRect = [Math.floor(shapes[0]), Math.floor(shapes[1]), Math.ceil(shapes[2]), Math.ceil(shapes[3])];
    let region = this.region(wd, hd, s, tight);
    if (region[0] >= region[2] || region[1] >= region[3]) region = [0, 0, 1, 1]; // no shape near: an empty texel
    const [rx0, ry0, rx1, ry1] = region, tw = rx1 - rx0, th = ry1 - ry0;
    const { draw } = this.host;
    const fb = this.fbs[this.cur];
    fb.resize(tw, th);
    fb.use(() => {
      this.regl.clear({ color: [0, 0, 0, 0] });
      draw({ scale: camera.scale, x: camera.x - rx0 / dpr, y: camera.y - ry0 / dpr }, tw / dpr, th / dpr);
    });
    this.held = { key, lod, cam: { ...camera }, region, shapes: s, exp: levelExp(camera.scale), partial: this.host.building() };
    this.renders++;
    return this.frameAt(this.held, { ...camera }, 1, 0, 0, hd);
  }

  /**
   * A pan past the held texture's margin, with no texture drawn ahead for it: the texture for the
   * view at `camera` (moved by whole device px from the held one, as a pan's frames are), on the
   * other target, with what both cover copied from the held one and only the rest drawn (up to four
   * bands), so the frame pays for the area it uncovers, not the whole texture. Null when they share
   * nothing (then `build`).
   */
  private scroll(key: string, lod: number, camera: CameraState, dpr: number, wd: number, hd: number): FusedFrame | null {
    const h = this.held;
    if (!h || h.key !== key || outdated(h, lod) || h.cam.scale !== camera.scale || wd > this.maxSize || hd > this.maxSize) return null;
    this.dropNext(); // its target is the one drawn on
    const n = this.begin(h, lod, Math.round((camera.x - h.cam.x) * dpr), Math.round((camera.y - h.cam.y) * dpr), dpr, wd, hd);
    if (!n) return null;
    this.drawBands(n, Infinity);
    this.adopt(n);
    this.scrolls++;
    return this.frameAt(n, n.cam, 1, 0, 0, hd);
  }

  /**
   * After a pan's frame (`cam`: its camera; `moved`: the view's move since the frame before, device
   * px): when the view nears the held texture's edge (a quarter of the margin left) or a next move
   * alike would leave it, the next texture is drawn ahead on the other target, in slices between
   * frames, over the views of the next AHEAD_MOVES moves alike (a band that wide drawn once for
   * them): the frame that leaves the held texture finds it drawn. A pan that turns back keeps the held one; the one ahead is
   * dropped when a frame's key, levels or zoom are no longer its own (an edit, a resize, a zoom).
   */
  private ahead(key: string, lod: number, cam: CameraState, moved: [number, number], dpr: number, wd: number, hd: number): void {
    const h = this.held;
    if (!h || h.key !== key || h.cam.scale !== cam.scale || this.settleTimer !== null || wd > this.maxSize || hd > this.maxSize) return;
    const [mx, my] = this.margins(wd, hd), lx = Math.round(mx / 4), ly = Math.round(my / 4);
    const origin = (t: Held) => [Math.round((t.cam.x - cam.x) * dpr), Math.round((t.cam.y - cam.y) * dpr)] as const; // the view's origin in t's px
    const leaves = (t: Held) => {
      const [ox, oy] = origin(t);
      return !covers(t, 1, ox + Math.round(moved[0]), oy + Math.round(moved[1]), wd, hd);
    };
    const near = (t: Held) => {
      const [ox, oy] = origin(t);
      return !covers(t, 1, ox - lx, oy - ly, wd + 2 * lx, hd + 2 * ly) || leaves(t);
    };
    // the one drawn ahead is kept while it holds the view after a move alike (it need not hold this view)
    if (!near(h) || (this.next && !leaves(this.next))) return;
    this.dropNext();
    // drawn for this view's camera, over the next AHEAD_MOVES views a move alike gives (past the
    // view's leading side: at least a margin and the next move, at most AHEAD_MOVES margins or the
    // next move) and a quarter margin around them; within the largest texture
    const reach = (v: number, size: number, m: number, slack: number): [number, number] => {
      const lead = Math.min(Math.max(AHEAD_MOVES * Math.abs(v), m), Math.max(AHEAD_MOVES * m, Math.abs(v)), Math.max(0, this.maxSize - size - 2 * slack));
      const back = Math.min(Math.abs(v), lead) - Math.round(m * AHEAD_BEHIND); // behind the first next view's trailing edge
      return v > 0 ? [back, size + lead + slack] : v < 0 ? [-lead - slack, size - back] : [-slack, size + slack];
    };
    const [x0, x1] = reach(Math.round(moved[0]), wd, mx, lx), [y0, y1] = reach(Math.round(moved[1]), hd, my, ly);
    this.next = this.begin(h, lod, Math.round((cam.x - h.cam.x) * dpr), Math.round((cam.y - h.cam.y) * dpr), dpr, wd, hd, [x0, y0, x1, y1]);
    this.schedule(0);
  }

  /**
   * Before a frame: the texture drawn ahead takes the held one's place once drawn and under the
   * view, or is finished in this frame when the view has left the held one for it; dropped when
   * its key, levels or zoom are not the frame's, or the view has left both.
   */
  private takeNext(key: string, lod: number, camera: CameraState, dpr: number, wd: number, hd: number): void {
    const n = this.next, h = this.held;
    if (!n || !h) return;
    if (n.key !== key || outdated(n, lod) || n.cam.scale !== camera.scale) return this.dropNext();
    const on = (t: Held) => covers(t, 1, Math.round((t.cam.x - camera.x) * dpr), Math.round((t.cam.y - camera.y) * dpr), wd, hd);
    const heldOn = h.key === key && !outdated(h, lod) && h.cam.scale === camera.scale && on(h);
    if (!on(n)) {
      if (!heldOn) this.dropNext();
      return;
    }
    if (undrawn(n)) {
      if (heldOn) return;
      this.drawBands(n, Infinity);
      this.aheadsLate++;
    }
    this.adopt(n);
    this.aheads++;
  }

  /**
   * The texture for the view moved by (dx, dy) device px from `h`'s (its levels' generation `lod`), begun on the other target: what
   * both cover copied from `h`'s (copyTexSubImage2D), the rest left as up to four bands to draw.
   * Its rect: `reach` (that view's px), else the view and the margin; clipped to the shapes. Null when they share nothing.
   */
  private begin(h: Held, lod: number, dx: number, dy: number, dpr: number, wd: number, hd: number, reach?: DeviceRect): Next | null {
    const cam = { scale: h.cam.scale, x: h.cam.x + dx / dpr, y: h.cam.y + dy / dpr };
    // in the held view's px (this view's px p is p - d there)
    const s: DeviceRect = [h.shapes[0] + dx, h.shapes[1] + dy, h.shapes[2] + dx, h.shapes[3] + dy];
    const r = reach ? clip(reach, s) : this.region(wd, hd, s);
    const [ox0, oy0, ox1, oy1] = [Math.max(r[0] - dx, h.region[0]), Math.max(r[1] - dy, h.region[1]), Math.min(r[2] - dx, h.region[2]), Math.min(r[3] - dy, h.region[3])];
    if (r[0] >= r[2] || r[1] >= r[3] || ox0 >= ox1 || oy0 >= oy1) return null;
    const tw = r[2] - r[0], th = r[3] - r[1], thHeld = h.region[3] - h.region[1];
    const from = this.fbs[this.cur], next = this.cur ^ 1;
    // the shared part, in the other's px (WebGL rows bottom-up in both)
    const bx0 = ox0 + dx - r[0], by0 = oy0 + dy - r[1], bx1 = ox1 + dx - r[0], by1 = oy1 + dy - r[1];
    const copy = { copy: true, x: ox0 - h.region[0], y: thHeld - (oy1 - h.region[1]), width: ox1 - ox0, height: oy1 - oy0 };
    const start = () => {
      this.fbs[next].resize(tw, th);
      from.use(() => this.texs[next].subimage(copy as unknown as Texture2DOptions, bx0, th - by1)); // regl's copy from the bound target (copyTexSubImage2D)
    };
    const bands = ([[0, 0, tw, by0], [0, by1, tw, th], [0, by0, bx0, by1], [bx1, by0, tw, by1]] as DeviceRect[]).filter(([x0, y0, x1, y1]) => x0 < x1 && y0 < y1);
    return { key: h.key, lod, cam, region: r, shapes: s, exp: h.exp, partial: h.partial, bands, dpr, start };
  }

  /**
   * Draws `n`'s bands on its target (each band's viewport grown by the widest dot or marker, since
   * point sprites are clipped by their centre, and scissored) until none is left or, between
   * frames, `until` (performance.now()) has passed: then a piece at a time, each waited for on the
   * GPU (a 1 px read), so its work does not land in the next frame.
   */
  private drawBands(n: Next, until: number): void {
    const { draw } = this.host, sliced = until !== Infinity;
    const g = Math.ceil(12 * n.dpr), th = n.region[3] - n.region[1], { cam, dpr } = n;
    n.start?.();
    n.start = null;
    this.fbs[this.cur ^ 1].use(() => {
      while (n.bands.length) {
        const [x0, y0, x1, y1] = piece(n.bands, sliced ? PIECE_PX : Infinity);
        const vp = { x: x0 - g, y: th - y1 - g, width: x1 - x0 + 2 * g, height: y1 - y0 + 2 * g };
        this.band({ vp, box: { x: x0, y: th - y1, width: x1 - x0, height: y1 - y0 } }, () => {
          this.regl.clear({ color: [0, 0, 0, 0] });
          draw({ scale: cam.scale, x: cam.x - (n.region[0] + x0 - g) / dpr, y: cam.y - (n.region[1] + y0 - g) / dpr }, vp.width / dpr, vp.height / dpr, g / dpr);
        });
        if (!sliced) continue;
        this.regl.read({ x: 0, y: 0, width: 1, height: 1, data: this.probe });
        if (performance.now() >= until) break;
      }
    });
    n.partial ||= this.host.building();
  }

  /** The next texture, all its bands drawn, becomes the held one (its target the current). */
  private adopt(n: Next): void {
    this.dropNext();
    this.cur ^= 1;
    this.held = { key: n.key, lod: n.lod, cam: n.cam, region: n.region, shapes: n.shapes, exp: n.exp, partial: n.partial };
    this.renders++;
  }

  private dropNext(): void {
    if (this.aheadTimer !== null) clearTimeout(this.aheadTimer);
    this.aheadTimer = null;
    this.next = null;
  }

  /** The next slice of the texture drawn ahead, in `delay` ms; once it is drawn the host is told (the renderer may be idle). */
  private schedule(delay: number): void {
    if (this.aheadTimer !== null || !this.next) return;
    this.aheadTimer = setTimeout(() => {
      this.aheadTimer = null;
      const n = this.next;
      if (!n || !undrawn(n)) return;
      // levels or masks still being made: the bands would hold stand-ins (the texture dropped once they are in)
      if (this.host.building()) return this.schedule(16);
      this.drawBands(n, performance.now() + AHEAD_SLICE_MS);
      if (undrawn(n)) this.schedule(0);
      else this.host.settled();
    }, delay);
  }

  /**
   * Zooming in, the kept texture holds forms this zoom draws otherwise: stand-ins whose levels are
   * built since, or dots and compact polygons in view past a half-octave (magnified, they showed as
   * blurred squares and the compact outline's inner edges, bench/render/gesture-shots.ts). Zooming
   * out they are only smaller.
   */
  private stale(lod: number, camera: CameraState, width: number, height: number): boolean {
    const h = this.held!;
    if (camera.scale <= h.cam.scale) return false;
    if (h.partial && h.lod !== lod) return true;
    if (levelExp(camera.scale) === h.exp) return false;
    const { x, y, scale } = camera, exp = h.exp, x0 = -x / scale, y0 = -y / scale, x1 = (width - x) / scale, y1 = (height - y) / scale;
    for (const c of this.host.cells.values()) {
      const b = c.bounds;
      if (b[0]! < x1 && b[2]! > x0 && b[1]! < y1 && b[3]! > y0 && wantedLevel(c, exp) !== FULL) return true;
    }
    return false;
  }

  /** The texture's rect for a view of wd x hd device px whose shapes are at `s` (its px): the view and the margin (`tight`: none), clipped to the shapes. */
  private region(wd: number, hd: number, s: DeviceRect, tight = false): DeviceRect {
    const [mx, my] = tight ? [0, 0] : this.margins(wd, hd);
    return clip([-mx, -my, wd + mx, hd + my], s);
  }

  /** The margin past the view's sides (device px), within the largest texture. */
  private margins(wd: number, hd: number): [number, number] {
    return [Math.min(Math.round(wd * MARGIN), Math.floor((this.maxSize - wd) / 2)), Math.min(Math.round(hd * MARGIN), Math.floor((this.maxSize - hd) / 2))];
  }

  /**
   * Draws each of its programs once with each filter (into the bound 1 x 1 warm-up target): software
   * WebGL compiles a program at its first draw with a sampler state (10-20 ms), else the first pan frame's.
   */
  warm(draw: FusedDraws): void {
    this.uniforms.tex = this.tex;
    const rect = [-1e7, -1e7, 2e7, 2e7];
    for (const f of ['nearest', 'linear'] as const) {
      this.filter(this.cur, f);
      draw.imageFused([{ tex: this.tex, rect, uv: [0, 0, 1, 1] }]);
      draw.shapesTexture([{ rect }]);
    }
  }

  /** Sets target i's texture filter (regl has no call for it without re-making the texture: its GL texture, the binding put back as regl left it). */
  private filter(i: number, f: 'nearest' | 'linear'): void {
    if (i < 0 || this.filters[i] === f) return;
    this.filters[i] = f;
    const gl = this.regl._gl, mode = f === 'nearest' ? gl.NEAREST : gl.LINEAR;
    const bound = gl.getParameter(gl.TEXTURE_BINDING_2D) as WebGLTexture | null;
    gl.bindTexture(gl.TEXTURE_2D, (this.texs[i] as unknown as { _texture: { texture: WebGLTexture } })._texture.texture);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, mode);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, mode);
    gl.bindTexture(gl.TEXTURE_2D, bound);
  }

  /**
   * The frame that shows `h` with a view px p (device px, y down) on the texture's view px k * p + o
   * (`cam`: the camera it shows). A fragment's texture coordinate is (gl_FragCoord.xy + at.xy) *
   * at.zw; WebGL counts rows up from the bottom in both, so a fragment's row y = hd - p.y falls on
   * the texture's row th - (k * p.y + o.y - ry0).
   */
  private frameAt(h: Held, cam: CameraState, k: number, ox: number, oy: number, hd: number): FusedFrame {
    const [rx0, ry0, rx1, ry1] = h.region, tw = rx1 - rx0, th = ry1 - ry0;
    return {
      cam,
      tex: this.tex,
      at: [(ox - rx0) / k, (th - k * hd - oy + ry0) / k, k / tw, k / th],
      region: [(rx0 - ox) / k, (ry0 - oy) / k, (rx1 - ox) / k, (ry1 - oy) / k],
      exact: k === 1 && Number.isInteger(ox) && Number.isInteger(oy),
    };
  }

  /** RenderStats' fused figures. */
  stats(): { fusedRenders: number; fusedFrames: number; fusedScaledFrames: number; fusedScrolls: number; fusedAhead: number; fusedAheadLate: number } {
    return { fusedRenders: this.renders, fusedFrames: this.frames, fusedScaledFrames: this.scaledFrames, fusedScrolls: this.scrolls, fusedAhead: this.aheads, fusedAheadLate: this.aheadsLate };
  }

  bytes(): number {
    return this.texs.reduce((n, t) => n + t.width * t.height * 4, 0);
  }

  dispose(): void {
    if (this.settleTimer !== null) clearTimeout(this.settleTimer);
    this.settleTimer = null;
    this.sharp = false;
    this.dropNext();
    for (const fb of this.fbs) fb.destroy();
  }
}

/**
 * Levels were built since `h` was drawn (`lod` moved) and it holds stand-ins they replace. A texture
 * drawn with no level still being made holds each cell at the level it wants: levels built later
 * (cells out of it, or laid out anew by compaction) leave its pixels as they are.
 */
function outdated(h: Held, lod: number): boolean {
  return h.partial && h.lod !== lod;
}

/** Some of the texture is still to draw (its copy or bands). */
function undrawn(n: Next): boolean {
  return n.start !== null || n.bands.length > 0;
}

/** The first piece of `bands` of about `px` device px (whole rows or columns of the first band, across its longer side), taken off them. */
function piece(bands: DeviceRect[], px: number): DeviceRect {
  const b = bands[0]!, w = b[2] - b[0], h = b[3] - b[1];
  if (w * h <= px) return bands.shift()!;
  if (h >= w) {
    const rows = Math.max(1, Math.floor(px / w)), p: DeviceRect = [b[0], b[1], b[2], b[1] + rows];
    b[1] += rows;
    return p;
  }
  const cols = Math.max(1, Math.floor(px / h)), p: DeviceRect = [b[0], b[1], b[0] + cols, b[3]];
  b[0] += cols;
  return p;
}

/** The rect `r` clipped to the shapes at `s` (whole px). */
function clip(r: DeviceRect, s: DeviceRect): DeviceRect {
  return [Math.max(r[0], Math.floor(s[0])), Math.max(r[1], Math.floor(s[1])), Math.min(r[2], Math.ceil(s[2])), Math.min(r[3], Math.ceil(s[3]))];
}

/** The view (wd x hd device px, on the texture's view px k * p + o), clipped to the shapes, lies inside `h`'s texture. */
function covers(h: Held, k: number, ox: number, oy: number, wd: number, hd: number): boolean {
  const x0 = Math.max(ox, h.shapes[0]), y0 = Math.max(oy, h.shapes[1]);
  const x1 = Math.min(k * wd + ox, h.shapes[2]), y1 = Math.min(k * hd + oy, h.shapes[3]);
  return x0 >= x1 || y0 >= y1 || (x0 >= h.region[0] && y0 >= h.region[1] && x1 <= h.region[2] && y1 <= h.region[3]);
}


/** The stats of a renderer without the fused path. */
export const NO_FUSED = { stats: () => ({ fusedRenders: 0, fusedFrames: 0, fusedScaledFrames: 0, fusedScrolls: 0, fusedAhead: 0, fusedAheadLate: 0 }) };
