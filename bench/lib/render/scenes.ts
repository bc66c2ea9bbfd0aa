// Generated benchmark scenes (deterministic): editor annotations plus the image size.
import type { EditorAnnotation } from '../../../src/engine';

export interface BenchScene {
  name: string;
  image: { width: number; height: number };
  annotations: EditorAnnotation[];
  /** Camera steps in the scripted pan and zoom (scaled down for heavy scenes). */
  steps: number;
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CLASSES = ['car', 'tree', 'road', 'sign', 'person', 'building', 'bike'];

function polygons(n: number, W: number, H: number, seed: number): EditorAnnotation[] {
  const r = rng(seed);
  const radius = Math.sqrt((W * H) / n) * 0.35;
  const out: EditorAnnotation[] = [];
  for (let i = 0; i < n; i++) {
    const cx = radius + r() * (W - 2 * radius), cy = radius + r() * (H - 2 * radius);
    const points: [number, number][] = [];
    for (let k = 0; k < 20; k++) {
      const a = (k / 20) * Math.PI * 2;
      const rr = radius * (0.55 + 0.45 * r());
      points.push([cx + Math.cos(a) * rr, cy + Math.sin(a) * rr]);
    }
    out.push({ id: `p${i}`, type: 'polygon', class: CLASSES[i % CLASSES.length]!, points });
  }
  return out;
}

function boxes(n: number, W: number, H: number, seed: number): EditorAnnotation[] {
  const r = rng(seed);
  const out: EditorAnnotation[] = [];
  for (let i = 0; i < n; i++) {
    const w = 40 + r() * 160, h = 40 + r() * 160;
    out.push({ id: `b${i}`, type: 'box', class: CLASSES[i % CLASSES.length]!, x: r() * (W - w), y: r() * (H - h), width: w, height: h });
  }
  return out;
}

/** Disc masks as COCO RLE (column-major counts built directly, no full-image raster). */
function masks(n: number, W: number, H: number, seed: number): EditorAnnotation[] {
  const r = rng(seed);
  const out: EditorAnnotation[] = [];
  for (let i = 0; i < n; i++) {
    const rad = 20 + r() * 60;
    const cx = rad + 1 + r() * (W - 2 * rad - 2), cy = rad + 1 + r() * (H - 2 * rad - 2);
    const counts: number[] = [];
    let pos = 0; // column-major index where the current background run started
    let minX = W, minY = H, maxX = 0, maxY = 0;
    for (let x = Math.floor(cx - rad); x <= Math.ceil(cx + rad); x++) {
      const dx = x + 0.5 - cx;
      const h2 = rad * rad - dx * dx;
      if (h2 <= 0) continue;
      const hh = Math.sqrt(h2);
      const y0 = Math.ceil(cy - hh - 0.5), y1 = Math.floor(cy + hh - 0.5); // pixel centres inside
      if (y1 < y0) continue;
      const start = x * H + y0;
      counts.push(start - pos, y1 - y0 + 1);
      pos = start + (y1 - y0 + 1);
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y0); maxY = Math.max(maxY, y1);
    }
    counts.push(W * H - pos);
    out.push({ id: `m${i}`, type: 'segmentation', class: CLASSES[i % CLASSES.length]!, x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1, rle: { size: [H, W], counts } });
  }
  return out;
}

export const benchScenes: Record<string, () => BenchScene> = {
  warmup: () => ({ name: 'warmup', image: { width: 1000, height: 1000 }, annotations: [...boxes(50, 1000, 1000, 5), ...masks(5, 1000, 1000, 6)], steps: 2 }),
  boxes1k: () => ({ name: 'boxes1k', image: { width: 4000, height: 3000 }, annotations: boxes(1000, 4000, 3000, 1), steps: 40 }),
  polygons10k: () => ({ name: 'polygons10k', image: { width: 8000, height: 6000 }, annotations: polygons(10_000, 8000, 6000, 2), steps: 30 }),
  polygons100k: () => ({ name: 'polygons100k', image: { width: 20_000, height: 20_000 }, annotations: polygons(100_000, 20_000, 20_000, 3), steps: 12 }),
  // issue 35: the image alone, on the image and camera path of polygons10k / polygons100k
  imageOnly10k: () => ({ name: 'imageOnly10k', image: { width: 8000, height: 6000 }, annotations: [], steps: 30 }),
  imageOnly100k: () => ({ name: 'imageOnly100k', image: { width: 20_000, height: 20_000 }, annotations: [], steps: 12 }),
  masks500: () => ({ name: 'masks500', image: { width: 4096, height: 4096 }, annotations: masks(500, 4096, 4096, 4), steps: 30 }),
};
