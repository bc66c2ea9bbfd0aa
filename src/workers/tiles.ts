// The image layer: one texture when the image fits (<= min(MAX_TEXTURE_SIZE, 4096)), otherwise
// a level-of-detail pyramid of tiles (level L = 1/2^L resolution) made lazily from the source
// with createImageBitmap's resize options, loaded for the visible area only and kept in an
// LRU cache. Missing tiles are covered by coarser loaded levels while they load.
import type { Regl, Texture2D } from 'regl';
import type { CameraState } from '../engine';
import type { ImageSourceMsg, TileLevel } from './protocol';

type Pixels = ImageBitmap | OffscreenCanvas;

export interface TileSource {
  readonly width: number;
  readonly height: number;
  /** Source rectangle (image px) scaled to outW x outH. */
  region(sx: number, sy: number, sw: number, sh: number, outW: number, outH: number): Promise<Pixels>;
  /** A source made of tiles already: the layer's grid follows it and asks for its tiles by number. */
  readonly pyramid?: { tileSize: number; tile(level: number, tx: number, ty: number): Promise<Pixels> };
  /** A pyramid's tile URLs signed anew (they expire within the hour): later fetches use these. */
  renew?(levels: TileLevel[]): void;
  close(): void;
}

class BitmapSource implements TileSource {
  readonly width: number;
  readonly height: number;
  constructor(readonly bitmap: ImageBitmap) {
    this.width = bitmap.width;
    this.height = bitmap.height;
  }
  region(sx: number, sy: number, sw: number, sh: number, outW: number, outH: number): Promise<Pixels> {
    return createImageBitmap(this.bitmap, sx, sy, sw, sh, { resizeWidth: outW, resizeHeight: outH, resizeQuality: 'medium' });
  }
  close(): void {
    this.bitmap.close();
  }
}

/**
 * A tile pyramid made by the server (large images: the browser never holds the whole image). Only
 * tiles are fetched; region() exists for the interface and composes them at the nearest level.
 */
class PyramidSource implements TileSource {
  readonly width: number;
  readonly height: number;
  readonly pyramid: { tileSize: number; tile(level: number, tx: number, ty: number): Promise<Pixels> };
  private levels: Map<number, TileLevel>;
  constructor(msg: Extract<ImageSourceMsg, { kind: 'tiles' }>) {
    this.width = msg.width;
    this.height = msg.height;
    this.levels = new Map(msg.levels.map((l) => [l.level, l]));
    this.pyramid = { tileSize: msg.tileSize, tile: (level, tx, ty) => this.fetchTile(level, tx, ty) };
  }
  renew(levels: TileLevel[]): void {
    this.levels = new Map(levels.map((l) => [l.level, l]));
  }
  private async fetchTile(level: number, tx: number, ty: number): Promise<ImageBitmap> {
    const l = this.levels.get(level);
    const url = l && tx < l.cols && ty < l.rows ? l.urls[ty * l.cols + tx] : undefined;
    if (!url) throw new Error(`No tile ${level}/${tx}/${ty}`);
    const res = await fetch(url);
    if (!res.ok) throw new Error(`Cannot load tile ${level}/${tx}/${ty}: HTTP ${res.status}`);
    return createImageBitmap(await res.blob());
  }
  async region(sx: number, sy: number, sw: number, sh: number, outW: number, outH: number): Promise<Pixels> {
    const size = this.pyramid.tileSize;
    const top = Math.max(...this.levels.keys());
    const level = Math.min(top, Math.max(0, Math.floor(Math.log2(sw / outW) + 1e-9)));
    const k = 2 ** level, span = size * k;
    const c = new OffscreenCanvas(outW, outH);
    const g = c.getContext('2d')!;
    const jobs: Promise<void>[] = [];
    for (let ty = Math.floor(sy / span); ty * span < sy + sh; ty++) {
      for (let tx = Math.floor(sx / span); tx * span < sx + sw; tx++) {
        jobs.push(
          this.fetchTile(level, tx, ty).then((bm) => {
            g.drawImage(bm, ((tx * span - sx) * outW) / sw, ((ty * span - sy) * outH) / sh, (bm.width * k * outW) / sw, (bm.height * k * outH) / sh);
            bm.close();
          }),
        );
      }
    }
    await Promise.all(jobs);
    return c;
  }
  close(): void {}
}

/**
 * A deterministic generated pattern (checks, a grid every 1000 px, a gradient) for benchmarks.
 * Made on the CPU into an ImageBitmap, as a decoded photo's tiles are: drawn with canvas 2D it
 * was rasterized in the GPU process (SwiftShader: up to ~0.5 s for a zoom level's tiles), and
 * those strokes were billed to the frames waiting behind them.
 */
class PatternSource implements TileSource {
  constructor(readonly width: number, readonly height: number) {}
  async region(sx: number, sy: number, sw: number, sh: number, outW: number, outH: number): Promise<Pixels> {
    // in a task of its own, as a photo's tiles are decoded off the frame (not inside the draw
    // that asked for them)
    await new Promise((resolve) => setTimeout(resolve, 0));
    const { width: W, height: H } = this;
    const kx = sw / outW, ky = sh / outH;
    const data = new Uint8ClampedArray(outW * outH * 4);
    const c0 = [0x5b, 0x6b, 0x7f], c1 = [0xa7, 0xb3, 0xc2];
    const norm = W * W + H * H;
    const step = 250, line = Math.max(2, kx) / 2;
    // per column / row: image coordinate, check parity, on a 1000 px grid line
    const axis = (start: number, k: number, n: number, size: number) => {
      const at = new Float64Array(n), parity = new Uint8Array(n), grid = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const v = start + (i + 0.5) * k;
        at[i] = v;
        parity[i] = Math.floor(v / step) & 1;
        grid[i] = Math.abs(v - Math.round(v / 1000) * 1000) < line && v > 0 && v < size ? 1 : 0;
      }
      return { at, parity, grid };
    };
    const { at: xs, parity: px, grid: gx } = axis(sx, kx, outW, W);
    const { at: ys, parity: py, grid: gy } = axis(sy, ky, outH, H);
    // one 32-bit write per pixel (little-endian RGBA); the gradient is linear along a row
    const u32 = new Uint32Array(data.buffer);
    const tx = new Float64Array(outW);
    for (let i = 0; i < outW; i++) tx[i] = (xs[i]! * W) / norm;
    const r0 = c0[0]!, g0 = c0[1]!, b0 = c0[2]!, dr = c1[0]! - r0, dg = c1[1]! - g0, db = c1[2]! - b0;
    let o = 0;
    for (let j = 0; j < outH; j++) {
      const ty = (ys[j]! * H) / norm, pj = py[j]!, gj = gy[j]!;
      for (let i = 0; i < outW; i++) {
        let t = tx[i]! + ty;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        let r = r0 + dr * t, g = g0 + dg * t, b = b0 + db * t;
        if ((px[i]! ^ pj) === 0) {
          r += (255 - r) * 0.12; g += (255 - g) * 0.12; b += (255 - b) * 0.12;
        }
        if (gx[i]! | gj) {
          r = r * 0.4 + 12; g = g * 0.4 + 12; b = b * 0.4 + 18;
        }
        u32[o++] = (0xff000000 | (((b + 0.5) | 0) << 16) | (((g + 0.5) | 0) << 8) | ((r + 0.5) | 0)) >>> 0;
      }
    }
    return createImageBitmap(new ImageData(data, outW, outH));
  }
  close(): void {}
}

export async function openSource(msg: ImageSourceMsg): Promise<TileSource | null> {
  switch (msg.kind) {
    case 'bitmap':
      return new BitmapSource(msg.bitmap);
    case 'blob':
      return new BitmapSource(await createImageBitmap(msg.blob));
    case 'url': {
      const res = await fetch(msg.url);
      if (!res.ok) throw new Error(`Cannot load image: HTTP ${res.status}`);
      return new BitmapSource(await createImageBitmap(await res.blob()));
    }
    case 'tiles':
      return new PyramidSource(msg);
    case 'pattern':
      return new PatternSource(msg.width, msg.height);
    case 'none':
      return null;
  }
}

interface Tile {
  key: string;
  level: number;
  tx: number;
  ty: number;
  x: number; // image px
  y: number;
  w: number;
  h: number;
  texture: Texture2D | null;
  loading: boolean;
  /** Loaded, waiting for its texture (see UPLOAD_GAP_MS). */
  pixels: Pixels | null;
}

/**
 * Arrived tiles are made into textures one per task, UPLOAD_GAP_MS apart, not in a frame (a new
 * texture from a 512 px bitmap is ~2.5 ms of software WebGL; four made as they arrived held up
 * the next frame by 10 ms and more, and a burst of them the frame after it), and drawn in one
 * frame once none is loading, or every SHOW_EVERY_MS while they keep arriving (slow network);
 * the coarser tiles stand in meanwhile. A frame per arrival drew the whole view again each time.
 */
const UPLOAD_GAP_MS = 6;
const SHOW_EVERY_MS = 100;

/** A textured quad: `rect` in image px, drawn from the `uv` part (u, v, width, height) of `tex`. */
export interface ImageQuad {
  tex: Texture2D;
  rect: [number, number, number, number];
  uv: [number, number, number, number];
}

export class ImageLayer {
  readonly mode: 'single' | 'tiled';
  private single: Texture2D | null = null;
  /**
   * Single mode, zoomed out: the whole image downscaled by 2^level (one texture per level, made
   * on demand). Sampling a 4096 px texture minified 8x every frame was most of a frame in
   * software WebGL (and WebGL 1 cannot mipmap a non-power-of-two texture).
   */
  private readonly reduced = new Map<number, Texture2D | 'loading'>();
  private readonly tiles = new Map<string, Tile>(); // LRU: insertion order = recency
  private readonly maxLevel: number;
  private loading = 0;
  private readonly queue: Tile[] = [];
  /** Loaded tiles to upload, oldest first. */
  private readonly arrived: Tile[] = [];
  private uploadTimer: ReturnType<typeof setTimeout> | null = null;
  private lastShown = 0;
  level = 0;
  private disposed = false;
  private readonly ready: Promise<void>;

  constructor(
    private readonly regl: Regl,
    readonly source: TileSource,
    limit: number,
    private readonly tileSize: number,
    private readonly maxTiles: number,
    private readonly onLoad: () => void,
    /** Called with each new tile texture, before a frame draws it (to pay its first use then). */
    private readonly warm: (tex: Texture2D) => void = () => undefined,
  ) {
    const big = Math.max(source.width, source.height);
    // A pyramid source is drawn from its own tiles, whatever the texture limit.
    if (source.pyramid) this.tileSize = source.pyramid.tileSize;
    this.mode = big <= limit && !source.pyramid ? 'single' : 'tiled';
    this.maxLevel = Math.max(0, Math.ceil(Math.log2(big / tileSize)));
    if (this.mode === 'single') {
      this.ready = (async () => {
        const px = source instanceof BitmapSource ? source.bitmap : await source.region(0, 0, source.width, source.height, source.width, source.height);
        if (this.disposed) return;
        this.single = regl.texture({ data: px as any, min: 'linear', mag: 'linear', wrapS: 'clamp', wrapT: 'clamp' });
        onLoad();
      })();
    } else {
      this.ready = Promise.resolve();
    }
  }

  /** Cells of the view the last visible() left without any tile (the fused path then composites over the image, fused.ts). */
  gaps = 0;

  get pending(): number {
    return this.loading + this.queue.length + this.arrived.length;
  }

  get cached(): number {
    return this.tiles.size;
  }

  whenSingleReady(): Promise<void> {
    return this.ready;
  }

  /**
   * The quads to draw this frame, requesting missing tiles. Each cell of the wanted level in view
   * is drawn once, from the finest loaded tile that covers it (itself, or part of a coarser one
   * while it loads): texture sampling is most of the image's cost in software WebGL, and drawing
   * the coarse tiles under the finer ones tripled it while a zoom level loaded.
   */
  visible(cam: CameraState, viewW: number, viewH: number, dpr: number): ImageQuad[] {
    const { width: W, height: H } = this.source;
    const whole: [number, number, number, number] = [0, 0, 1, 1];
    if (this.mode === 'single') {
      if (!this.single) return [];
      const level = Math.min(this.maxLevel, Math.max(0, Math.floor(Math.log2(1 / (cam.scale * dpr)) + 1e-9)));
      this.level = level;
      if (level === 0) return [{ tex: this.single, rect: [0, 0, W, H], uv: whole }];
      const r = this.reduced.get(level);
      if (r && r !== 'loading') return [{ tex: r, rect: [0, 0, W, H], uv: whole }];
      if (!r) this.loadReduced(level);
      return [{ tex: this.single, rect: [0, 0, W, H], uv: whole }];
    }
    const minX = Math.max(0, -cam.x / cam.scale), minY = Math.max(0, -cam.y / cam.scale);
    const maxX = Math.min(W, (viewW - cam.x) / cam.scale), maxY = Math.min(H, (viewH - cam.y) / cam.scale);
    if (maxX <= minX || maxY <= minY) return [];
    const px = cam.scale * dpr;
    const level = Math.min(this.maxLevel, Math.max(0, Math.floor(Math.log2(1 / px) + 1e-9)));
    this.level = level;
    // Load the wanted level's tiles in view (nearest first) and the overview, which fills gaps.
    const wanted: Tile[] = [];
    for (const L of level === this.maxLevel ? [level] : [this.maxLevel, level]) {
      const span = this.tileSize * 2 ** L;
      for (let ty = Math.floor(minY / span); ty < Math.ceil(maxY / span); ty++) {
        for (let tx = Math.floor(minX / span); tx < Math.ceil(maxX / span); tx++) {
          const t = this.tile(L, tx, ty);
          if (!t.texture && !t.loading && !t.pixels) wanted.push(t);
        }
      }
    }
    this.lastShown = performance.now();
    const out: ImageQuad[] = [];
    const span = this.tileSize * 2 ** level;
    let cells = 0;
    for (let ty = Math.floor(minY / span); ty < Math.ceil(maxY / span); ty++) {
      for (let tx = Math.floor(minX / span); tx < Math.ceil(maxX / span); tx++) {
        cells++;
        for (let L = level; L <= this.maxLevel; L++) {
          const k = 2 ** (L - level);
          const key = `${L}/${Math.floor(tx / k)}/${Math.floor(ty / k)}`;
          const t = this.tiles.get(key);
          if (!t?.texture) continue;
          this.tiles.delete(key);
          this.tiles.set(key, t); // most recent
          const x = tx * span, y = ty * span, w = Math.min(span, W - x), h = Math.min(span, H - y);
          out.push({ tex: t.texture, rect: [x, y, w, h], uv: [(x - t.x) / t.w, (y - t.y) / t.h, w / t.w, h / t.h] });
          break;
        }
      }
    }
    this.gaps = cells - out.length;
    const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2;
    wanted.sort((a, b) => b.level - a.level || Math.hypot(a.x + a.w / 2 - cx, a.y + a.h / 2 - cy) - Math.hypot(b.x + b.w / 2 - cx, b.y + b.h / 2 - cy));
    this.queue.length = 0;
    this.queue.push(...wanted);
    this.pump();
    this.evict();
    return out;
  }

  /** The tile at (level, tx, ty), made (not loaded) if new; marked most recently used. */
  private tile(level: number, tx: number, ty: number): Tile {
    const key = `${level}/${tx}/${ty}`;
    let t = this.tiles.get(key);
    if (t) this.tiles.delete(key);
    else {
      const { width: W, height: H } = this.source;
      const span = this.tileSize * 2 ** level;
      t = { key, level, tx, ty, x: tx * span, y: ty * span, w: Math.min(span, W - tx * span), h: Math.min(span, H - ty * span), texture: null, loading: false, pixels: null };
    }
    this.tiles.set(key, t);
    return t;
  }

  private loadReduced(level: number): void {
    const { width: W, height: H } = this.source;
    const k = 2 ** level;
    this.reduced.set(level, 'loading');
    this.loading++;
    this.source.region(0, 0, W, H, Math.max(1, Math.round(W / k)), Math.max(1, Math.round(H / k))).then((px) => {
      this.loading--;
      if (this.disposed) {
        if ('close' in px) px.close();
        return;
      }
      this.reduced.set(level, this.regl.texture({ data: px as any, min: 'linear', mag: 'linear', wrapS: 'clamp', wrapT: 'clamp' }));
      if ('close' in px) px.close();
      this.onLoad();
    }, (err: unknown) => {
      this.loading--;
      this.reduced.delete(level);
      console.error('Image level failed:', err);
    });
  }

  private pump(): void {
    while (this.loading < 4 && this.queue.length) {
      const t = this.queue.shift()!;
      if (t.loading || t.texture || !this.tiles.has(t.key)) continue;
      t.loading = true;
      this.loading++;
      const k = 2 ** t.level;
      const outW = Math.max(1, Math.round(t.w / k)), outH = Math.max(1, Math.round(t.h / k));
      const pixels = this.source.pyramid ? this.source.pyramid.tile(t.level, t.tx, t.ty) : this.source.region(t.x, t.y, t.w, t.h, outW, outH);
      pixels.then((px) => {
        this.loading--;
        t.loading = false;
        if (this.disposed || !this.tiles.has(t.key)) {
          if ('close' in px) px.close();
          return;
        }
        t.pixels = px;
        this.arrived.push(t);
        this.scheduleUpload();
        this.pump();
      }, (err: unknown) => {
        this.loading--;
        t.loading = false;
        console.error('Tile load failed:', err);
      });
    }
  }

  /** Makes the arrived tiles' textures, one per task; asks for a frame when they are all in (or every SHOW_EVERY_MS). */
  private scheduleUpload(): void {
    if (this.uploadTimer !== null || !this.arrived.length || this.disposed) return;
    this.uploadTimer = setTimeout(() => {
      this.uploadTimer = null;
      if (this.disposed) return;
      const t = this.arrived.shift()!;
      const px = t.pixels;
      t.pixels = null;
      if (px && this.tiles.has(t.key)) { // else evicted while it waited
        t.texture = this.regl.texture({ data: px as any, min: 'linear', mag: 'linear', wrapS: 'clamp', wrapT: 'clamp' });
        if ('close' in px) px.close();
        this.warm(t.texture);
      }
      const now = performance.now();
      if (this.pending === 0 || now - this.lastShown > SHOW_EVERY_MS) {
        this.lastShown = now;
        this.onLoad();
      }
      this.scheduleUpload();
    }, UPLOAD_GAP_MS);
  }

  private evict(): void {
    if (this.tiles.size <= this.maxTiles) return;
    for (const [key, t] of this.tiles) {
      if (this.tiles.size <= this.maxTiles) break;
      if (t.level === this.maxLevel) continue; // the overview stays
      t.texture?.destroy();
      closePixels(t);
      this.tiles.delete(key);
    }
  }

  /**
   * Frees the textures and closes the source; once only. `glGone`: the renderer's regl context is
   * already destroyed (with every texture in it), so the textures are not destroyed again: regl
   * throws 'must not double destroy texture' (issue 33: twice on every exit from the editor).
   */
  dispose(glGone = false): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.uploadTimer !== null) clearTimeout(this.uploadTimer);
    if (!glGone) {
      this.single?.destroy();
      for (const r of this.reduced.values()) if (r !== 'loading') r.destroy();
    }
    for (const t of this.tiles.values()) {
      if (!glGone) t.texture?.destroy();
      closePixels(t);
    }
    this.tiles.clear();
    this.source.close();
  }
}

function closePixels(t: Tile): void {
  if (t.pixels && 'close' in t.pixels) t.pixels.close();
  t.pixels = null;
}
