// Thumbnail URLs (spec section 9): signed-URL batches of 50 with a 100 ms pause between batches;
// the first 20 images load at once, the rest after 100 ms. Cache of at most 300 entries, 2 h
// lifetime, persisted in browser storage, the oldest 10% evicted when full, swept every 5 min.
import { create } from 'zustand';
import type { Image } from '../../../../contract/images';
import { api } from '../../../api/client';

const STORAGE_KEY = 'vellum.thumbnails';
const MAX_ENTRIES = 300;
const LIFETIME_MS = 2 * 60 * 60 * 1000;
const BATCH = 50;
const PAUSE_MS = 100;
const FIRST = 20;

interface Entry {
  url: string;
  timestamp: number;
  expiresAt: number;
}

/** Cache key: bucket plus object path (spec: bucket plus filename). */
export const thumbKey = (image: Pick<Image, 'gcs_uri' | 'thumbnail_path'>) => `${image.gcs_uri}#thumb`;

function load(): Record<string, Entry> {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    const parsed = raw ? (JSON.parse(raw) as Record<string, Entry>) : {};
    const now = Date.now();
    return Object.fromEntries(Object.entries(parsed).filter(([, e]) => e && typeof e.url === 'string' && e.expiresAt > now));
  } catch {
    return {};
  }
}

function persist(entries: Record<string, Entry>) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(entries));
  } catch {
    /* storage full or unavailable: the cache still works in memory */
  }
}

interface ThumbState {
  entries: Record<string, Entry>;
  failed: Record<string, true>;
  put(values: Record<string, string>, expiresAt: number): void;
  fail(keys: string[]): void;
  sweep(): void;
}

export const useThumbnails = create<ThumbState>()((set, get) => ({
  entries: load(),
  failed: {},
  put(values, expiresAt) {
    const now = Date.now();
    let entries = { ...get().entries };
    for (const [key, url] of Object.entries(values)) entries[key] = { url, timestamp: now, expiresAt: Math.min(expiresAt, now + LIFETIME_MS) };
    const keys = Object.keys(entries);
    if (keys.length > MAX_ENTRIES) {
      const oldest = keys.sort((a, b) => entries[a].timestamp - entries[b].timestamp).slice(0, keys.length - MAX_ENTRIES + Math.ceil(MAX_ENTRIES / 10));
      entries = Object.fromEntries(Object.entries(entries).filter(([k]) => !oldest.includes(k) || k in values));
    }
    persist(entries);
    set({ entries });
  },
  fail(keys) {
    const failed = { ...get().failed };
    for (const k of keys) failed[k] = true;
    set({ failed });
  },
  sweep() {
    const now = Date.now();
    const entries = Object.fromEntries(Object.entries(get().entries).filter(([, e]) => e.expiresAt - 60_000 > now));
    persist(entries);
    set({ entries });
  },
}));

if (typeof window !== 'undefined') window.setInterval(() => useThumbnails.getState().sweep(), 5 * 60 * 1000);

const inFlight = new Set<string>();
const sleep = (ms: number) => new Promise((r) => window.setTimeout(r, ms));

/** Signs thumbnails for the images that have none cached (or in flight). */
export async function requestThumbnails(orgId: string, images: readonly Image[]): Promise<void> {
  const { entries, failed } = useThumbnails.getState();
  const now = Date.now();
  const wanted = images.filter((img) => {
    const key = thumbKey(img);
    const e = entries[key];
    return !(e && e.expiresAt - 60_000 > now) && !failed[key] && !inFlight.has(img.id);
  });
  if (!wanted.length) return;
  wanted.forEach((img) => inFlight.add(img.id));
  const run = async (batch: readonly Image[]) => {
    try {
      // Images without a thumbnail (none could be made) show their original instead.
      for (const [variant, group] of [
        ['thumbnail', batch.filter((i) => i.thumbnail_path)],
        ['original', batch.filter((i) => !i.thumbnail_path)],
      ] as const) {
        if (!group.length) continue;
        const res = await api.batchSignedUrls(orgId, group.map((i) => i.id), variant);
        const values: Record<string, string> = {};
        for (const img of group) if (res.signed_urls[img.id]) values[thumbKey(img)] = res.signed_urls[img.id];
        useThumbnails.getState().put(values, Date.parse(res.expires_at) || Date.now() + LIFETIME_MS);
        useThumbnails.getState().fail(group.filter((i) => !res.signed_urls[i.id]).map(thumbKey));
      }
    } catch {
      /* leave them unsigned; the next view retries */
    } finally {
      batch.forEach((img) => inFlight.delete(img.id));
    }
  };
  await run(wanted.slice(0, FIRST));
  const rest = wanted.slice(FIRST);
  for (let i = 0; i < rest.length; i += BATCH) {
    await sleep(PAUSE_MS);
    await run(rest.slice(i, i + BATCH));
  }
}
