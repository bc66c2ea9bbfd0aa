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
  private readonly levels: Map<number, TileLevel>;
  constructor(msg: Extract<ImageSourceMsg, { kind: 'tiles' }>) {
    this.width = msg.width;
    this.height = msg.height;
    this.levels = new Map(msg.levels.map((l) => [l.level, l]));
    this.pyramid = { tileSize: msg.tileSize, tile: (level, tx, ty) => this.fetchTile(level, tx, ty) };
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
  region(sx: number, sy: number, sw: number, sh: number, outW: number, outH: number): Promise<Pixels> {
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
}

export interface ImageDrawer {
  (props: { tex: Texture2D; rect: [number, number, number, number] }[]): void;
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

  get pending(): number {
    return this.loading + this.queue.length;
  }

  get cached(): number {
    return this.tiles.size;
  }

  whenSingleReady(): Promise<void> {
    return this.ready;
  }

  /** The quads to draw this frame (coarse first), requesting missing tiles. */
  visible(cam: CameraState, viewW: number, viewH: number, dpr: number): { tex: Texture2D; rect: [number, number, number, number] }[] {
    const { width: W, height: H } = this.source;
    if (this.mode === 'single') {
      if (!this.single) return [];
      const level = Math.min(this.maxLevel, Math.max(0, Math.floor(Math.log2(1 / (cam.scale * dpr)) + 1e-9)));
      this.level = level;
      if (level === 0) return [{ tex: this.single, rect: [0, 0, W, H] }];
      const r = this.reduced.get(level);
      if (r && r !== 'loading') return [{ tex: r, rect: [0, 0, W, H] }];
      if (!r) this.loadReduced(level);
      return [{ tex: this.single, rect: [0, 0, W, H] }];
    }
    const minX = Math.max(0, -cam.x / cam.scale), minY = Math.max(0, -cam.y / cam.scale);
    const maxX = Math.min(W, (viewW - cam.x) / cam.scale), maxY = Math.min(H, (viewH - cam.y) / cam.scale);
    if (maxX <= minX || maxY <= minY) return [];
    const px = cam.scale * dpr;
    const level = Math.min(this.maxLevel, Math.max(0, Math.floor(Math.log2(1 / px) + 1e-9)));
    this.level = level;
    const out: { tex: Texture2D; rect: [number, number, number, number] }[] = [];
    // The wanted level, nearest tiles first; coarser levels fill gaps while it loads.
    const wanted: Tile[] = [];
    for (let L = this.maxLevel; L >= level; L--) {
      const span = this.tileSize * 2 ** L;
      const tx0 = Math.floor(minX / span), tx1 = Math.ceil(maxX / span), ty0 = Math.floor(minY / span), ty1 = Math.ceil(maxY / span);
      for (let ty = ty0; ty < ty1; ty++) {
        for (let tx = tx0; tx < tx1; tx++) {
          const key = `${L}/${tx}/${ty}`;
          let t = this.tiles.get(key);
          if (t) {
            this.tiles.delete(key);
            this.tiles.set(key, t); // most recent
          }
          if (L === level || L === this.maxLevel) {
            if (!t) {
              t = { key, level: L, tx, ty, x: tx * span, y: ty * span, w: Math.min(span, W - tx * span), h: Math.min(span, H - ty * span), texture: null, loading: false };
              this.tiles.set(key, t);
            }
            if (!t.texture && !t.loading) wanted.push(t);
          }
          if (t?.texture && (L === level || !this.coveredAt(level, t, minX, minY, maxX, maxY))) out.push({ tex: t.texture, rect: [t.x, t.y, t.w, t.h] });
        }
      }
    }
    const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2;
    wanted.sort((a, b) => b.level - a.level || Math.hypot(a.x + a.w / 2 - cx, a.y + a.h / 2 - cy) - Math.hypot(b.x + b.w / 2 - cx, b.y + b.h / 2 - cy));
    this.queue.length = 0;
    this.queue.push(...wanted);
    this.pump();
    this.evict();
    return out;
  }

  /**
   * True when the loaded tiles of `level` cover the visible part of the coarser tile `t`: it
   * would be drawn over entirely, so it is not drawn (texture sampling is most of the image's
   * cost in software WebGL; the overview under every view doubled it).
   */
  private coveredAt(level: number, t: Tile, minX: number, minY: number, maxX: number, maxY: number): boolean {
    const span = this.tileSize * 2 ** level;
    const x0 = Math.max(t.x, minX), y0 = Math.max(t.y, minY), x1 = Math.min(t.x + t.w, maxX), y1 = Math.min(t.y + t.h, maxY);
    for (let ty = Math.floor(y0 / span); ty < Math.ceil(y1 / span); ty++) {
      for (let tx = Math.floor(x0 / span); tx < Math.ceil(x1 / span); tx++) {
        if (!this.tiles.get(`${level}/${tx}/${ty}`)?.texture) return false;
      }
    }
    return true;
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
        t.texture = this.regl.texture({ data: px as any, min: 'linear', mag: 'linear', wrapS: 'clamp', wrapT: 'clamp' });
        if ('close' in px) px.close();
        this.pump();
        this.onLoad();
      }, (err: unknown) => {
        this.loading--;
        t.loading = false;
        console.error('Tile load failed:', err);
      });
    }
  }

  private evict(): void {
    if (this.tiles.size <= this.maxTiles) return;
    for (const [key, t] of this.tiles) {
      if (this.tiles.size <= this.maxTiles) break;
      if (t.level === this.maxLevel) continue; // the overview stays
      t.texture?.destroy();
      this.tiles.delete(key);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.single?.destroy();
    for (const r of this.reduced.values()) if (r !== 'loading') r.destroy();
    for (const t of this.tiles.values()) t.texture?.destroy();
    this.tiles.clear();
    this.source.close();
  }
}
