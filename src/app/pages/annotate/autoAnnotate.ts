// The Auto-Annotate tool's state (spec sections 2 and 4, issue 7): warm the segmenter up, embed
// the image 100 ms after the tool is chosen, turn clicks into positive / negative points, ask
// for a mask (debounced 100 ms; a newer click cancels the request in flight) and hand the mask to
// the editor on Complete. Framework-free so it is unit-tested with a fake API and clock.
import type { GetMaskResponse } from '../../../contract/segmentation';

export interface SegmentationApi {
  warmup(): Promise<unknown>;
  health(): Promise<{ status: 'healthy' | 'starting' | 'unhealthy' }>;
  process(imageName: string): Promise<unknown>;
  mask(imageName: string, positive: [number, number][], negative: [number, number][], usePrevious: boolean, signal: AbortSignal): Promise<GetMaskResponse>;
}

export interface AutoPoint {
  x: number;
  y: number;
  positive: boolean;
  /** Clicked before the image was ready: sent once it is. */
  pending: boolean;
}

export interface AutoState {
  container: 'idle' | 'warming' | 'ready' | 'failed';
  embedding: 'idle' | 'processing' | 'ready';
  points: AutoPoint[];
  mask: GetMaskResponse | null;
  /** A mask request is running. */
  processing: boolean;
  /** Set after the first mask: 'Return to Complete' shows until this time. */
  hintUntil: number;
  error: string | null;
}

export const WARMUP_TRIES = 30;
export const WARMUP_INTERVAL_MS = 1000;
export const PROCESS_DELAY_MS = 100;
export const PROCESS_RETRIES = 3;
export const MASK_DEBOUNCE_MS = 100;
export const HINT_MS = 6000;
/** Processing-cache entries live 24 h and are swept every 10 min (spec section 9). */
export const CACHE_TTL_MS = 24 * 3600 * 1000;
export const CACHE_SWEEP_MS = 10 * 60 * 1000;

interface Clock {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(h: unknown): void;
}
const realClock: Clock = { now: () => Date.now(), set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };

const initial = (): AutoState => ({ container: 'idle', embedding: 'idle', points: [], mask: null, processing: false, hintUntil: 0, error: null });

/** Even-odd test over the mask's polygons (outer paths and holes). */
export function insideMask(mask: GetMaskResponse | null, x: number, y: number): boolean {
  if (!mask) return false;
  let inside = false;
  for (const a of mask.vellum_annotations) {
    for (const ring of [a.polygon.path, ...a.polygon.holes]) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi] = ring[i]!;
        const [xj, yj] = ring[j]!;
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
      }
    }
  }
  return inside;
}

/** The status bar text: 'Starting Up...', 'Embedding Image...', 'Ready for Input', or a point count and the mask's share of the image. */
export function statusText(s: AutoState, imageArea: number | null): { label: string; area: string | null } {
  if (s.points.length === 0) {
    if (s.container !== 'ready') return { label: s.container === 'failed' ? 'Assisted segmentation is unavailable' : 'Starting Up...', area: null };
    if (s.embedding !== 'ready') return { label: 'Embedding Image...', area: null };
    return { label: 'Ready for Input', area: null };
  }
  // Points clicked before the image was ready show as pending.
  const n = s.points.length;
  const pending = s.points.some((p) => p.pending);
  const area = s.mask && imageArea ? `${((s.mask.area / imageArea) * 100).toFixed(1)}%` : 'Unknown';
  return { label: `${n} point${n === 1 ? '' : 's'}${pending ? ' (pending)' : ''}`, area };
}

export class AutoAnnotateSession {
  private state: AutoState = initial();
  private readonly listeners = new Set<(s: AutoState) => void>();
  private imageName: string | null = null;
  private active = false;
  private warm: Promise<boolean> | null = null;
  private processTimer: unknown = null;
  private maskTimer: unknown = null;
  private inflight: AbortController | null = null;
  private generation = 0;
  private readonly cache = new Map<string, { state: 'processing' | 'processed' | 'failed'; at: number }>();
  private sweepTimer: unknown = null;

  constructor(
    private readonly api: SegmentationApi,
    private readonly clock: Clock = realClock,
    private readonly log: (m: string, e?: unknown) => void = (m, e) => console.warn(m, e),
  ) {}

  getState(): AutoState {
    return this.state;
  }

  subscribe(fn: (s: AutoState) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private set(patch: Partial<AutoState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l(this.state);
  }

  /** The tool was chosen on this image: warm up, then embed after 100 ms. */
  activate(imageName: string): void {
    this.active = true;
    if (this.imageName !== imageName) this.resetImage(imageName);
    this.sweepLater();
    void this.ensureWarm();
    this.clock.clear(this.processTimer);
    this.processTimer = this.clock.set(() => void this.processImage(), PROCESS_DELAY_MS);
  }

  /** Another tool was chosen: drop points and mask, cancel what runs. */
  deactivate(): void {
    this.active = false;
    this.clock.clear(this.processTimer);
    this.clear();
  }

  /** The editor moved to another image: points and masks belong to the old one. */
  setImage(imageName: string): void {
    if (imageName === this.imageName) return;
    this.resetImage(imageName);
    if (this.active) this.activate(imageName);
  }

  private resetImage(imageName: string): void {
    this.imageName = imageName;
    this.clear();
    this.set({ embedding: 'idle' });
  }

  private ensureWarm(): Promise<boolean> {
    if (this.warm) return this.warm;
    this.set({ container: 'warming', error: null });
    this.warm = (async () => {
      try {
        await this.api.warmup();
      } catch (err) {
        this.log('Segmentation warm-up failed:', err);
      }
      for (let i = 0; i < WARMUP_TRIES; i++) {
        try {
          if ((await this.api.health()).status === 'healthy') {
            this.set({ container: 'ready' });
            return true;
          }
        } catch (err) {
          this.log('Segmentation health check failed:', err);
        }
        await this.sleep(WARMUP_INTERVAL_MS);
      }
      this.set({ container: 'failed', error: 'The segmentation service did not start. Try again later.' });
      this.warm = null;
      return false;
    })();
    return this.warm;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => this.clock.set(r, ms));
  }

  private async processImage(): Promise<void> {
    const name = this.imageName;
    if (!name || !this.active) return;
    if (!(await this.ensureWarm()) || name !== this.imageName) return;
    const cached = this.cache.get(name);
    if (cached?.state === 'processed' && this.clock.now() - cached.at < CACHE_TTL_MS) {
      this.set({ embedding: 'ready' });
      this.flushPending();
      return;
    }
    this.cache.set(name, { state: 'processing', at: this.clock.now() });
    this.set({ embedding: 'processing' });
    let delay = 1000;
    for (let attempt = 0; attempt <= PROCESS_RETRIES; attempt++) {
      try {
        await this.api.process(name);
        this.cache.set(name, { state: 'processed', at: this.clock.now() });
        break;
      } catch (err) {
        this.log('Segmentation process failed:', err);
        if (attempt === PROCESS_RETRIES) {
          // Spec: after the retries, go on as ready (get-mask embeds on demand).
          this.cache.set(name, { state: 'failed', at: this.clock.now() });
          break;
        }
        await this.sleep(delay);
        delay *= 2;
      }
      if (name !== this.imageName) return;
    }
    if (name !== this.imageName) return;
    this.set({ embedding: 'ready' });
    this.flushPending();
  }

  private get ready(): boolean {
    return this.state.container === 'ready' && this.state.embedding === 'ready';
  }

  /** A click in image pixels. Shift, or a click inside the current mask, adds a negative point. */
  click(x: number, y: number, shift: boolean): void {
    const positive = !(shift || insideMask(this.state.mask, x, y));
    const pending = !this.ready;
    this.set({ points: [...this.state.points, { x, y, positive, pending }] });
    if (!pending) this.requestMask();
  }

  private flushPending(): void {
    if (!this.state.points.some((p) => p.pending)) return;
    this.set({ points: this.state.points.map((p) => ({ ...p, pending: false })) });
    this.requestMask();
  }

  private requestMask(): void {
    this.clock.clear(this.maskTimer);
    this.maskTimer = this.clock.set(() => void this.fetchMask(), MASK_DEBOUNCE_MS);
  }

  private async fetchMask(): Promise<void> {
    const name = this.imageName;
    if (!name) return;
    this.inflight?.abort();
    const ctl = new AbortController();
    this.inflight = ctl;
    const gen = ++this.generation;
    const pos = this.state.points.filter((p) => p.positive).map((p) => [p.x, p.y] as [number, number]);
    const neg = this.state.points.filter((p) => !p.positive).map((p) => [p.x, p.y] as [number, number]);
    if (pos.length === 0) {
      this.set({ mask: null, processing: false });
      return;
    }
    this.set({ processing: true, error: null });
    try {
      const mask = await this.api.mask(name, pos, neg, this.state.mask !== null, ctl.signal);
      if (gen !== this.generation || name !== this.imageName) return;
      const first = this.state.mask === null;
      this.set({ mask, processing: false, hintUntil: first ? this.clock.now() + HINT_MS : this.state.hintUntil });
    } catch (err) {
      if (gen !== this.generation) return; // superseded or cancelled: ignored
      if ((err as Error)?.name === 'AbortError') return;
      this.log('Error rendering SAM2 mask:', err);
      this.set({ processing: false, error: 'The mask could not be computed. Click again to retry.' });
    }
  }

  /** Clear: no points, no mask, nothing in flight. */
  clear(): void {
    this.clock.clear(this.maskTimer);
    this.inflight?.abort();
    this.inflight = null;
    this.generation++;
    this.set({ points: [], mask: null, processing: false, hintUntil: 0, error: null });
  }

  canComplete(): boolean {
    return Boolean(this.state.mask) && !this.state.processing && this.state.mask!.area > 0;
  }

  /** The mask to save, and the points behind it; then the session starts over on the same image. */
  complete(): { mask: GetMaskResponse; pointCount: number } | null {
    if (!this.canComplete()) return null;
    const result = { mask: this.state.mask!, pointCount: this.state.points.length };
    this.clear();
    return result;
  }

  private sweepLater(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = this.clock.set(() => {
      this.sweepTimer = null;
      const now = this.clock.now();
      for (const [k, v] of this.cache) if (now - v.at > CACHE_TTL_MS) this.cache.delete(k);
      if (this.active) this.sweepLater();
    }, CACHE_SWEEP_MS);
  }

  dispose(): void {
    this.active = false;
    this.clock.clear(this.processTimer);
    this.clock.clear(this.sweepTimer);
    this.clear();
    this.listeners.clear();
  }
}
