// The Auto-Annotate tool's server side (spec sections 2 and 4, issues 7 and 18): warm the
// segmenter up, embed the image 100 ms after the tool is chosen, and be the engine's segmentation
// backend (editor.auto.setSegmenter): a mask request waits until the image is ready (clicks before then
// show as pending), then asks get-mask. Points, the box, the debounce, cancellation and the mask
// shown live in the engine's Auto-Annotate tool (src/engine/tools/auto). Framework-free so it is
// unit-tested with a fake API and clock.
import { readStorage, writeStorage } from '../lib/storage';
import type { GetMaskResponse } from '../../contract/segmentation';
import type { AbortSignalLike, MaskProposal, SegmentPrompt, Segmenter } from '../../engine';

export interface SegmentationApi {
  warmup(): Promise<unknown>;
  health(): Promise<{ status: 'healthy' | 'starting' | 'unhealthy' }>;
  process(imageName: string): Promise<unknown>;
  /** `tolerance`: how far the answer's polygons may stray from the mask's edge, in pixels (the server's default when absent). */
  mask(imageName: string, prompt: SegmentPrompt, usePrevious: boolean, signal: AbortSignal, tolerance?: number): Promise<GetMaskResponse>;
}

/** What an accepted mask becomes: the mask itself, or polygons snapped to its edge within `tolerance` pixels. */
export type MaskOutput = { kind: 'mask' } | { kind: 'polygon'; tolerance: number };
export const POLYGON_TOLERANCES = [1, 2, 4] as const;
const OUTPUT_KEY = 'vellum.autoAnnotate.output';

function storedOutput(): MaskOutput {
  const v = readStorage<unknown>(OUTPUT_KEY, null) as { kind?: unknown; tolerance?: unknown } | null;
  if (v?.kind === 'polygon' && POLYGON_TOLERANCES.includes(v.tolerance as 1)) return { kind: 'polygon', tolerance: v.tolerance as number };
  return { kind: 'mask' };
}

export interface AutoState {
  container: 'idle' | 'warming' | 'ready' | 'failed';
  embedding: 'idle' | 'processing' | 'ready';
  error: string | null;
  /** Kept on this device across sessions. */
  output: MaskOutput;
}

/** What the status bar needs of the engine tool's prompt (the editor's view.drawing, kind 'auto'). */
export interface PromptInfo {
  points: number;
  /** The mask shown, if any. */
  area: number | null;
  waiting: boolean;
  failed: boolean;
}

export const MASK_ERROR = 'The mask could not be computed. Click again to retry.';

export const WARMUP_TRIES = 30;
export const WARMUP_INTERVAL_MS = 1000;
export const PROCESS_DELAY_MS = 100;
export const PROCESS_RETRIES = 3;
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

const initial = (): AutoState => ({ container: 'idle', embedding: 'idle', error: null, output: storedOutput() });

/** get-mask's answer as the engine's proposal (polygons with holes; the answer itself is saved on Complete). */
export function toProposal(res: GetMaskResponse): MaskProposal {
  return { polygons: res.vellum_annotations.map((a) => ({ path: a.polygon.path, holes: a.polygon.holes })), area: res.area, score: res.score, data: res };
}

/** The status bar text: 'Starting Up...', 'Embedding Image...', 'Ready for Input', or a point count and the mask's share of the image. */
export function statusText(s: Pick<AutoState, 'container' | 'embedding'>, prompt: PromptInfo | null, imageArea: number | null): { label: string; area: string | null } {
  if (!prompt || prompt.points === 0) {
    if (s.container !== 'ready') return { label: s.container === 'failed' ? 'Assisted segmentation is unavailable' : 'Starting Up...', area: null };
    if (s.embedding !== 'ready') return { label: 'Embedding Image...', area: null };
    if (!prompt) return { label: 'Ready for Input', area: null };
  }
  // Points clicked before the image was ready show as pending (a box alone is '0 points').
  const n = prompt.points;
  const pending = n > 0 && !(s.container === 'ready' && s.embedding === 'ready');
  const area = prompt.area !== null && imageArea ? `${((prompt.area / imageArea) * 100).toFixed(1)}%` : 'Unknown';
  return { label: `${n} point${n === 1 ? '' : 's'}${pending ? ' (pending)' : ''}`, area };
}

const abortError = () => Object.assign(new Error('The mask request was cancelled'), { name: 'AbortError' });

export class AutoAnnotateSession {
  private state: AutoState = initial();
  private readonly listeners = new Set<(s: AutoState) => void>();
  private imageName: string | null = null;
  private active = false;
  private warm: Promise<boolean> | null = null;
  private processTimer: unknown = null;
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

  /** What accepted masks become from now on (the next mask is asked with its tolerance, so the preview shows what is saved). */
  setOutput(output: MaskOutput): void {
    writeStorage(OUTPUT_KEY, output);
    this.set({ output });
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

  /** Another tool was chosen (the engine tool drops its prompt itself). */
  deactivate(): void {
    this.active = false;
    this.clock.clear(this.processTimer);
  }

  /**
   * The image after this one in the sequence: once the annotator uses Auto-Annotate, it is embedded
   * in the background while they work here, so its first click needs no wait.
   */
  setNext(imageName: string | null): void {
    this.nextName = imageName;
    if (this.ready) void this.prepareNext();
  }

  private nextName: string | null = null;

  private async prepareNext(): Promise<void> {
    const name = this.nextName;
    if (!name || name === this.imageName || !this.warm || this.cache.has(name)) return;
    this.cache.set(name, { state: 'processing', at: this.clock.now() });
    try {
      await this.api.process(name);
      this.cache.set(name, { state: 'processed', at: this.clock.now() });
    } catch (err) {
      // Not an error the annotator needs to see: the image is embedded when it is opened.
      this.cache.delete(name);
      this.log('Preparing the next image for Auto-Annotate failed:', err);
    }
  }

  /** The editor moved to another image (loading it drops the engine tool's prompt). */
  setImage(imageName: string): void {
    if (imageName === this.imageName) return;
    this.resetImage(imageName);
    if (this.active) this.activate(imageName);
  }

  private resetImage(imageName: string): void {
    this.imageName = imageName;
    this.set({ embedding: 'idle', error: null });
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
      void this.prepareNext();
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
    void this.prepareNext();
  }

  private get ready(): boolean {
    return this.state.container === 'ready' && this.state.embedding === 'ready';
  }

  /** Resolves with the image's name once it is ready for masks; rejects when `signal` aborts or the service failed. */
  whenReady(signal: AbortSignalLike): Promise<string> {
    return new Promise((resolve, reject) => {
      let unsubscribe = () => {};
      const onAbort = () => check();
      const check = (): void => {
        const name = this.imageName;
        const done = signal.aborted || this.state.container === 'failed' || (this.ready && name !== null);
        if (!done) return;
        unsubscribe();
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) reject(abortError());
        else if (this.state.container === 'failed') reject(new Error(this.state.error ?? 'Assisted segmentation is unavailable'));
        else resolve(name!);
      };
      unsubscribe = this.subscribe(check);
      signal.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }

  /** The engine's segmentation backend: waits for the image to be ready, then asks get-mask. */
  segmenter(): Segmenter {
    return {
      mask: async (prompt, usePrevious, signal) => {
        try {
          const name = await this.whenReady(signal);
          // The engine hands over a real AbortSignal (its AbortController's); typed narrowly there.
          const output = this.state.output;
          return toProposal(await this.api.mask(name, prompt, usePrevious, signal as AbortSignal, output.kind === 'polygon' ? output.tolerance : undefined));
        } catch (err) {
          if ((err as Error)?.name !== 'AbortError') this.log('Error rendering SAM2 mask:', err);
          throw err;
        }
      },
    };
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
    this.listeners.clear();
  }
}
