// The train/val/test split of an export (request field `split`), decided before the first byte.
//
// A first pass reads each exported image's id and the names of its classes (images.class_names,
// kept by triggers on the annotation rows; those of the class filter kept): no shape is loaded,
// so 100k images cost 100k short rows.
// Then, with no database and no randomness:
// - images are ordered by a hash of (seed, image id) (cyrb53, 53 bits; ties by id), so the same seed and the same images give the
//   same split whatever order the rows arrive in, and adding images moves few others;
// - each split's size is its fraction of the images, rounded by largest remainder (sizes sum to
//   the count);
// - stratify (default true): classes from the rarest up, each class with at least as many images
//   as there are splits (of a fraction above 0) first gets one of its images, not yet placed, in
//   every split it is missing from. Images with several classes can make this impossible (three
//   images, three classes each on two of them, two splits): such classes are named in README.txt;
// - every other image, in hash order, goes to the split furthest below its size.
import { and, asc, gt } from 'drizzle-orm';
import { images } from '../../db/schema';
import { errors } from '../../errors';
import { SPLIT_NAMES, SPLIT_SUM_TOLERANCE, type ExportSplit, type SplitName } from '../../../contract/export';
import type { RunState } from '../../formats/write-common';
import type { TimeSlice } from '../../offload/slice';

const FIRST_PASS_ROWS = 10_000;

export interface ImageClasses {
  id: string;
  classes: readonly string[];
}

export interface SplitPlan {
  /** The splits of the layout, in order: train, val, and test when the request gives it. */
  names: SplitName[];
  seed: number;
  stratify: boolean;
  /** Images per split. */
  counts: Record<SplitName, number>;
  /** Classes with enough images that could not be put in every split (see the header). */
  unspread: string[];
  of(imageId: string): SplitName;
}

/** 400 invalid_split unless every fraction is 0..1 and they sum to 1 (within SPLIT_SUM_TOLERANCE). */
export function checkSplit(split: ExportSplit): void {
  const fractions = [split.train, split.val, split.test ?? 0];
  if (fractions.some((f) => !(f >= 0 && f <= 1))) throw errors.badRequest('Each split fraction must be between 0 and 1', 'invalid_split');
  const sum = fractions.reduce((a, b) => a + b, 0);
  if (Math.abs(sum - 1) > SPLIT_SUM_TOLERANCE) throw errors.badRequest(`The split fractions must sum to 1 (they sum to ${sum})`, 'invalid_split');
}

/** n divided by the fractions, rounded by largest remainder (ties: the earlier split). */
export function splitSizes(fractions: readonly number[], n: number): number[] {
  const exact = fractions.map((f) => f * n);
  const sizes = exact.map(Math.floor);
  let left = n - sizes.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    if (fractions[i]! > 0) {
      sizes[i]! += 1;
      left -= 1;
    }
  }
  return sizes;
}

/** A 53-bit hash of the image id under the seed (cyrb53): cheap, and the same on every run. */
function hashKey(seed: number, id: string): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < id.length; i++) {
    const ch = id.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Member indices by (hash key, id): the keys sorted natively (a typed array sort, a few ms at 100k,
 * where a comparator sort held the loop 100+ ms), then each key's members looked up.
 */
async function hashOrder(members: readonly ImageClasses[], keys: Float64Array, slice: Pick<TimeSlice, 'due' | 'pause'>): Promise<number[]> {
  const byKey = new Map<number, number | number[]>();
  for (let i = 0; i < keys.length; i++) {
    if ((i & 1023) === 0 && slice.due()) await slice.pause();
    const had = byKey.get(keys[i]!);
    if (had === undefined) byKey.set(keys[i]!, i);
    else if (typeof had === 'number') byKey.set(keys[i]!, [had, i]);
    else had.push(i);
  }
  const sorted = Float64Array.from(byKey.keys()).sort();
  const order: number[] = [];
  for (let k = 0; k < sorted.length; k++) {
    if ((k & 1023) === 0 && slice.due()) await slice.pause();
    const at = byKey.get(sorted[k]!)!;
    if (typeof at === 'number') order.push(at);
    else order.push(...at.sort((a, b) => (members[a]!.id < members[b]!.id ? -1 : 1)));
  }
  return order;
}

const NO_PAUSE: Pick<TimeSlice, 'due' | 'pause'> = { due: () => false, pause: async () => undefined };

/**
 * The split of each image (the same members and request give the same answer in any order). The
 * loops pause on `slice` (100k images: about 0.2 s of CPU in all, the sort of the ids by hash the
 * longest piece that cannot pause).
 */
export async function assignSplits(members: readonly ImageClasses[], split: ExportSplit, slice: Pick<TimeSlice, 'due' | 'pause'> = NO_PAUSE): Promise<Omit<SplitPlan, 'of'> & { byId: Map<string, SplitName> }> {
  const names: SplitName[] = split.test !== undefined ? [...SPLIT_NAMES] : ['train', 'val'];
  const fractions = names.map((n) => split[n] ?? 0);
  const seed = split.seed ?? 0;
  const stratify = split.stratify ?? true;
  const n = members.length;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if ((i & 1023) === 0 && slice.due()) await slice.pause();
    keys[i] = hashKey(seed, members[i]!.id);
  }
  const order = await hashOrder(members, keys, slice);
  const targets = splitSizes(fractions, n);
  const placed = new Int8Array(n).fill(-1);
  const sizes = names.map(() => 0);
  const place = (m: number, i: number) => {
    placed[m] = i;
    sizes[i]! += 1;
  };
  const unspread: string[] = [];
  const active = fractions.flatMap((f, i) => (f > 0 ? [i] : []));
  if (stratify && active.length > 1) {
    // Each class's images, in hash order.
    const byClass = new Map<string, number[]>();
    for (let k = 0; k < n; k++) {
      if ((k & 1023) === 0 && slice.due()) await slice.pause();
      const m = order[k]!;
      for (const c of members[m]!.classes) {
        let list = byClass.get(c);
        if (!list) byClass.set(c, (list = []));
        if (list[list.length - 1] !== m) list.push(m);
      }
    }
    const rarestFirst = [...byClass].filter(([, ms]) => ms.length >= active.length).sort(([a, x], [b, y]) => x.length - y.length || (a < b ? -1 : a > b ? 1 : 0));
    for (const [cls, ms] of rarestFirst) {
      if (slice.due()) await slice.pause();
      const present = new Set<number>();
      for (const m of ms) if (placed[m]! >= 0) present.add(placed[m]!);
      let next = 0;
      for (const i of active) {
        if (present.has(i)) continue;
        while (next < ms.length && placed[ms[next]!]! >= 0) next += 1;
        if (next >= ms.length) {
          unspread.push(cls);
          break;
        }
        place(ms[next]!, i);
      }
    }
  }
  for (let k = 0; k < n; k++) {
    if ((k & 1023) === 0 && slice.due()) await slice.pause();
    const m = order[k]!;
    if (placed[m]! >= 0) continue;
    let best = 0;
    for (let i = 1; i < names.length; i++) if (targets[i]! - sizes[i]! > targets[best]! - sizes[best]!) best = i;
    place(m, best);
  }
  const byId = new Map<string, SplitName>();
  for (let m = 0; m < n; m++) {
    if ((m & 1023) === 0 && slice.due()) await slice.pause();
    byId.set(members[m]!.id, names[placed[m]!]!);
  }
  const counts = { train: 0, val: 0, test: 0 } as Record<SplitName, number>;
  names.forEach((name, i) => (counts[name] = sizes[i]!));
  return { names, seed, stratify, counts, unspread, byId };
}

/** The exported images with their exported classes (the first pass), then their split. */
export async function planSplit(s: Pick<RunState, 'ctx' | 'where' | 'classFilter' | 'slice'>, split: ExportSplit): Promise<SplitPlan> {
  const filter = s.classFilter;
  const members: ImageClasses[] = [];
  // Pages of FIRST_PASS_ROWS by id: no one result set of 100k rows parsed in one go.
  for (let after: string | null = null; ; ) {
    const rows = await s.ctx.db
      .select({ id: images.id, classes: images.classNames })
      .from(images)
      .where(after === null ? s.where : and(s.where, gt(images.id, after)))
      .orderBy(asc(images.id))
      .limit(FIRST_PASS_ROWS);
    for (const r of rows) members.push({ id: r.id, classes: filter ? r.classes.filter((c) => filter.has(c)) : r.classes });
    if (rows.length < FIRST_PASS_ROWS) break;
    after = rows[rows.length - 1]!.id;
    if (s.slice.due()) await s.slice.pause();
  }
  const { byId, ...plan } = await assignSplits(members, split, s.slice);
  return {
    ...plan,
    // An image added after the first pass (none normally: the same condition) goes to train.
    of: (id) => byId.get(id) ?? 'train',
  };
}

/** README.txt lines stating the split. */
export function splitReadme(plan: SplitPlan | null): string[] {
  if (!plan) return ['Split: none (every image in one set).'];
  const lines = [
    `Split (seed ${plan.seed}, ${plan.stratify ? 'stratified by class' : 'not stratified'}): ${plan.names.map((n) => `${n} ${plan.counts[n]}`).join(', ')} image(s).`,
    'The same seed and the same images always give the same split.',
  ];
  if (plan.unspread.length) lines.push(`Classes that could not be put in every split (their images carry other classes too): ${plan.unspread.join(', ')}.`);
  return lines;
}
