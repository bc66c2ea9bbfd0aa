// Packing SceneTracker diffs into flat typed arrays (main thread) so the render worker receives
// them as transferables; the worker builds geometry from these.
import { CLASS_PALETTE, FALLBACK_CLASS_COLOR } from '../contract/projects';
import { pendingScore, type EditorAnnotation, type SceneDiff, type SceneItem } from '../engine';
import { TYPE_CODES, type PackedScene } from './protocol';

/** The 15 class colours (DESIGN.md), in palette order: the contract's, one list for the app and the renderer. */
export { CLASS_PALETTE };

const FALLBACK_RGB = Number.parseInt(FALLBACK_CLASS_COLOR.slice(1), 16);

/** 0xRRGGBB of a #rgb or #rrggbb colour; anything else is the fallback class colour. */
export function parseColor(css: string): number {
  const m = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(css.trim());
  if (!m) return FALLBACK_RGB;
  let hex = m[1]!;
  if (hex.length === 3) hex = hex.replace(/./g, (c) => c + c);
  return parseInt(hex, 16);
}

/** A stable default colour for a class name (palette position from a string hash). */
export function defaultClassColor(name: string): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (Math.imul(h, 31) + name.charCodeAt(i)) | 0;
  return CLASS_PALETTE[Math.abs(h) % CLASS_PALETTE.length]!;
}

function countCoords(a: EditorAnnotation): [rings: number, points: number] {
  if (a.type === 'polygon') {
    let n = a.points.length, r = 1;
    for (const h of a.holes ?? []) { n += h.length; r++; }
    return [r, n];
  }
  if (a.type === 'polyline') return [1, a.points.length];
  if (a.type === 'skeleton') return [1, a.keypoints.length];
  return [0, 0];
}

/** Packs upserts [from, to) of a diff; `removed`/`reset` go with the first part only. */
export function packScene(
  diff: { reset: boolean; removed: readonly string[] },
  items: readonly SceneItem[],
  colorOf: (cls: string) => number,
  /** A skeleton class's edges (Editor.skeletonOf); without them a skeleton shows its points only. */
  edgesOf: (cls: string) => readonly (readonly [number, number])[] | undefined = () => undefined,
): PackedScene {
  const n = items.length;
  let rings = 0, points = 0;
  for (const it of items) {
    const [r, p] = countCoords(it.annotation);
    rings += r;
    points += p;
  }
  const ids = new Array<string>(n);
  const z = new Float64Array(n), types = new Uint8Array(n), colors = new Uint32Array(n);
  const rect = new Float32Array(n * 4), ringCounts = new Uint32Array(n);
  const ringLens = new Uint32Array(rings), coords = new Float32Array(points * 2);
  const masks: PackedScene['masks'] = [];
  const skeletons: NonNullable<PackedScene['skeletons']> = [];
  const dashed: number[] = [];
  const colorCache = new Map<string, number>();
  const names: string[] = [], nameIdx = new Uint16Array(n), nameAt = new Map<string, number>();
  let ri = 0, ci = 0;
  const putRing = (ring: readonly (readonly [number, number])[]) => {
    ringLens[ri++] = ring.length;
    for (const p of ring) { coords[ci++] = p[0]; coords[ci++] = p[1]; }
  };
  for (let i = 0; i < n; i++) {
    const { id, annotation: a } = items[i]!;
    ids[i] = id;
    z[i] = items[i]!.z;
    types[i] = TYPE_CODES[a.type];
    let c = colorCache.get(a.class);
    if (c === undefined) { c = colorOf(a.class); colorCache.set(a.class, c); }
    colors[i] = c;
    // a pending prediction is dashed, its label the class and its score ("car 0.87")
    const score = pendingScore(a);
    if (score !== null) dashed.push(i);
    const name = score === null ? a.class : `${a.class} ${score.toFixed(2)}`;
    let k = nameAt.get(name);
    if (k === undefined) { k = names.push(name) - 1; nameAt.set(name, k); }
    nameIdx[i] = k;
    switch (a.type) {
      case 'box':
      case 'segmentation':
        rect[4 * i] = a.x; rect[4 * i + 1] = a.y; rect[4 * i + 2] = a.width; rect[4 * i + 3] = a.height;
        if (a.type === 'segmentation') masks.push({ index: i, size: [a.rle.size[0], a.rle.size[1]], counts: typeof a.rle.counts === 'string' ? a.rle.counts : a.rle.counts.slice() });
        break;
      case 'keypoint':
        rect[4 * i] = a.x; rect[4 * i + 1] = a.y;
        break;
      case 'polygon':
        ringCounts[i] = 1 + (a.holes?.length ?? 0);
        putRing(a.points);
        for (const h of a.holes ?? []) putRing(h);
        break;
      case 'polyline':
        ringCounts[i] = 1;
        putRing(a.points);
        break;
      case 'skeleton': {
        ringCounts[i] = 1;
        putRing(a.keypoints.map((p) => [p.x, p.y] as const));
        const edges: number[] = [];
        for (const [from, to] of edgesOf(a.class) ?? []) edges.push(from, to);
        skeletons.push({ index: i, v: a.keypoints.map((p) => p.v), edges });
        break;
      }
    }
  }
  return { reset: diff.reset, removed: [...diff.removed], ids, z, types, colors, rect, ringCounts, ringLens, coords, names, nameIdx, masks, ...(skeletons.length ? { skeletons } : {}), ...(dashed.length ? { dashed } : {}) };
}

/** The typed arrays of a packed scene, to pass as comlink transferables. */
export function sceneTransferables(s: PackedScene): Transferable[] {
  return [s.z.buffer, s.types.buffer, s.colors.buffer, s.rect.buffer, s.ringCounts.buffer, s.ringLens.buffer, s.coords.buffer, s.nameIdx.buffer] as ArrayBuffer[];
}

/** A diff's part as packed and posted: `reset` and `removed` travel with the first part only. */
export interface ScenePart {
  reset: boolean;
  removed: readonly string[];
  items: readonly SceneItem[];
}

/** Splits a diff into parts of at most `size` upserts so no single packing task is long. */
export function splitDiff(diff: SceneDiff, size: number): ScenePart[] {
  const parts: ScenePart[] = [];
  for (let from = 0; from < diff.upserts.length || parts.length === 0; from += size) {
    parts.push({ reset: parts.length === 0 && diff.reset, removed: parts.length === 0 ? diff.removed : [], items: diff.upserts.slice(from, from + size) });
  }
  return parts;
}
