// Embeddings per image, in memory: one computation shared by concurrent requests, a size bound
// (least recently used processed entries go first), entries kept 24 h and swept every 10 minutes
// (spec section 9), and the processing-cache states of spec section 4.
import type { Embedding } from './types';

export const CACHE_TTL_MS = 24 * 60 * 60 * 1000;
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** A failed computation is remembered this long, so a broken image is not decoded on every click. */
export const FAILED_TTL_MS = 60 * 1000;

export type EntryState = 'processing' | 'processed' | 'failed';

interface Entry<E extends Embedding> {
  state: EntryState;
  promise: Promise<E>;
  value?: E;
  error?: unknown;
  /** seconds the computation took */
  seconds: number;
  createdAt: number;
  usedAt: number;
}

export class EmbeddingCache<E extends Embedding = Embedding> {
  private readonly entries = new Map<string, Entry<E>>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly maxBytes: number,
    private readonly now: () => number = Date.now,
    /** Called with every computed value the cache lets go (evicted, expired, deleted, closed): an embedding held on an offload thread is dropped there too. */
    private readonly onDrop?: (value: E) => void,
  ) {
    this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * The embedding for `key`, computing it with `compute` unless it is cached or being computed.
   * `fresh` says whether this call started the computation.
   */
  async get(key: string, compute: () => Promise<E>): Promise<{ value: E; fresh: boolean; seconds: number }> {
    const t = this.now();
    let entry = this.entries.get(key);
    if (entry && (entry.state === 'failed' ? t - entry.createdAt > FAILED_TTL_MS : t - entry.createdAt > CACHE_TTL_MS)) {
      this.remove(key);
      entry = undefined;
    }
    let fresh = false;
    if (!entry) {
      fresh = true;
      const started = performance.now();
      const created: Entry<E> = { state: 'processing', promise: undefined as unknown as Promise<E>, seconds: 0, createdAt: t, usedAt: t };
      created.promise = compute().then(
        (value) => {
          created.state = 'processed';
          created.value = value;
          created.seconds = (performance.now() - started) / 1000;
          this.evict(key);
          return value;
        },
        (err: unknown) => {
          created.state = 'failed';
          created.error = err;
          created.createdAt = this.now();
          throw err;
        },
      );
      this.entries.set(key, created);
      entry = created;
    }
    entry.usedAt = t;
    const value = await entry.promise;
    return { value, fresh, seconds: entry.seconds };
  }

  state(key: string): EntryState | null {
    return this.entries.get(key)?.state ?? null;
  }

  delete(key: string): void {
    this.remove(key);
  }

  /** Deletes `key` only while it still holds `value` (two requests that found it stale must not delete each other's fresh one). */
  deleteValue(key: string, value: E): void {
    if (this.entries.get(key)?.value === value) this.remove(key);
  }

  private remove(key: string): void {
    const value = this.entries.get(key)?.value;
    this.entries.delete(key);
    if (value) this.onDrop?.(value);
  }

  get bytes(): number {
    let sum = 0;
    for (const e of this.entries.values()) sum += e.value?.bytes ?? 0;
    return sum;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops expired entries (run every 10 minutes). */
  sweep(): void {
    const t = this.now();
    for (const [key, e] of this.entries) {
      if (e.state === 'processed' && t - e.createdAt > CACHE_TTL_MS) this.remove(key);
      if (e.state === 'failed' && t - e.createdAt > FAILED_TTL_MS) this.remove(key);
    }
  }

  /** Least recently used processed entries go until the total fits (the newest one always stays). */
  private evict(keep: string): void {
    let total = this.bytes;
    if (total <= this.maxBytes) return;
    const victims = [...this.entries].filter(([k, e]) => k !== keep && e.state === 'processed').sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [k, e] of victims) {
      if (total <= this.maxBytes) break;
      this.remove(k);
      total -= e.value?.bytes ?? 0;
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const key of [...this.entries.keys()]) this.remove(key);
  }
}
