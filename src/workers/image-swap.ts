// The renderer's image and its swaps: the image shown, the images opened ahead (preload) or
// shown before, kept by key for an instant swap, and the hold that keeps the last frame on the
// canvas while the next image's first textures come in.
import type { CameraState } from '../engine';
import type { ImageSourceMsg } from './protocol';
import { openSource, type ImageLayer, type TileSource } from './tiles';

/** Longest an image swap keeps the previous frame on the canvas before drawing without it. */
export const HOLD_MAX_MS = 1500;
/** Images kept opened for a swap (the neighbours preloaded, the ones shown before), least recently used dropped first. */
const MAX_PRELOADED = 3;
/** A kept image older than this is opened again (a pyramid's signed tile URLs expire within the hour). */
const PRELOAD_TTL_MS = 30 * 60_000;
/** How long preloading may wait for the textures of its view. */
const PRELOAD_PRIME_MS = 20_000;

/** What the swap needs of the renderer. */
export interface ImageSwapHost {
  newLayer(source: TileSource): ImageLayer;
  camera(): CameraState;
  size(): { width: number; height: number; dpr: number };
  disposed(): boolean;
  requestFrame(): void;
}

export class ImageSwap {
  /** The image drawn, or null. */
  image: ImageLayer | null = null;
  /** The swap in progress, if any. */
  loading: Promise<void> | null = null;
  /** No frame is drawn while held (an image swap in progress), see hold(). */
  held = false;
  /** How long the last swap took to open and prime its image (ms). */
  loadMs = 0;
  /** The last swap (an earlier one still loading is dropped when it is done). */
  private token = 0;
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  /** The key of the image shown (swap's), and images opened ahead by key (see preload). */
  private key: string | undefined;
  private readonly preloaded = new Map<string, { at: number; layer: Promise<ImageLayer | null> }>();

  constructor(private readonly host: ImageSwapHost) {}

  /** True when `key`'s image is the one shown and no swap is in progress: nothing to open. */
  shows(key: string | undefined): boolean {
    return key !== undefined && key === this.key && !!this.image && !this.loading;
  }

  /**
   * Swaps the image (Renderer.setImage): holds the frame while the new source opens, its texture
   * is made and the textures the view needs first are in, at most HOLD_MAX_MS; then the old
   * image's textures go (or it is kept under its key) and the hold is released.
   */
  async swap(msg: ImageSourceMsg, key?: string): Promise<void> {
    this.hold();
    const token = ++this.token;
    const ti = performance.now();
    const kept = key !== undefined ? this.takePreloaded(key) : undefined;
    const p = (async () => {
      const current = () => !this.host.disposed() && token === this.token;
      let next = kept ? await kept.catch(() => null) : null;
      if (!next) {
        const source = await openSource(msg);
        if (!current()) return source?.close();
        next = source ? this.host.newLayer(source) : null;
      }
      try {
        if (next) {
          await next.whenSingleReady();
          await this.prime(next, this.host.camera(), ti + HOLD_MAX_MS);
        }
      } catch (err) {
        this.disposeLayer(next);
        throw err;
      }
      if (!current()) return this.disposeLayer(next);
      // The image left is kept for a while (going back swaps at once), unless it had no key.
      const old = this.image;
      if (old && this.key !== undefined && this.key !== key) this.keep(this.key, Promise.resolve(old));
      else this.disposeLayer(old);
      this.image = next;
      this.key = key;
      this.loadMs = performance.now() - ti;
    })();
    this.loading = p;
    try {
      await p;
    } finally {
      if (this.loading === p) this.loading = null;
      if (token === this.token) this.release();
      this.host.requestFrame();
    }
  }

  /** Opens an image ahead under `key` (protocol.ts), with the textures of `camera`'s view. */
  preload(key: string, msg: ImageSourceMsg, camera: CameraState): void {
    if (key === this.key && this.image) return;
    const had = this.preloaded.get(key);
    if (had && performance.now() - had.at < PRELOAD_TTL_MS) {
      this.preloaded.delete(key);
      this.preloaded.set(key, had); // most recent
      return;
    }
    const layer = (async () => {
      const source = await openSource(msg);
      if (!source || this.host.disposed()) {
        source?.close();
        return null;
      }
      const l = this.host.newLayer(source);
      await l.whenSingleReady();
      await this.prime(l, camera, performance.now() + PRELOAD_PRIME_MS);
      return l;
    })();
    layer.catch(() => {
      if (this.preloaded.get(key)?.layer === layer) this.preloaded.delete(key);
    });
    this.keep(key, layer);
  }

  private keep(key: string, layer: Promise<ImageLayer | null>): void {
    const had = this.preloaded.get(key);
    this.preloaded.delete(key);
    if (had && had.layer !== layer) this.dropLayer(had.layer);
    this.preloaded.set(key, { at: performance.now(), layer });
    while (this.preloaded.size > MAX_PRELOADED) {
      const [k, e] = this.preloaded.entries().next().value!;
      this.preloaded.delete(k);
      this.dropLayer(e.layer);
    }
  }

  private takePreloaded(key: string): Promise<ImageLayer | null> | undefined {
    const e = this.preloaded.get(key);
    if (!e) return undefined;
    this.preloaded.delete(key);
    if (performance.now() - e.at < PRELOAD_TTL_MS) return e.layer;
    this.dropLayer(e.layer);
    return undefined;
  }

  private dropLayer(layer: Promise<ImageLayer | null>): void {
    void layer.then((l) => this.disposeLayer(l), () => undefined);
  }

  /**
   * A layer let go: its textures too while the renderer lives. A layer still opening when the
   * renderer was disposed settles after regl.destroy() took every texture with it.
   */
  private disposeLayer(layer: ImageLayer | null | undefined): void {
    layer?.dispose(this.host.disposed());
  }

  /** Asks for the textures `layer` needs for `camera`'s view and waits for them (until `until`). */
  private async prime(layer: ImageLayer, camera: CameraState, until: number): Promise<void> {
    for (;;) {
      const { width, height, dpr } = this.host.size();
      layer.visible(camera, width, height, dpr);
      if (layer.pending === 0 || this.host.disposed() || performance.now() > until) return;
      await new Promise((r) => setTimeout(r, 4));
    }
  }

  /** Draws no frame (the canvas keeps the last one) until release(), at most HOLD_MAX_MS. */
  hold(): void {
    this.held = true;
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => {
      // Too long: draw without the old image (and with the new one when it is in).
      if (this.loading) {
        const old = this.image;
        this.image = null;
        if (old && this.key !== undefined) this.keep(this.key, Promise.resolve(old));
        else this.disposeLayer(old);
        this.key = undefined;
      }
      this.release();
    }, HOLD_MAX_MS);
  }

  private release(): void {
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    if (!this.held) return;
    this.held = false;
    this.host.requestFrame();
  }

  dispose(): void {
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    this.disposeLayer(this.image);
    for (const e of this.preloaded.values()) this.dropLayer(e.layer);
    this.preloaded.clear();
  }
}
