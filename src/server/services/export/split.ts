// The train/val/test split of an export (request field `split`), decided before the first byte.
//
// A first pass reads each exported image's id and the names of its classes (images.class_names,
// kept by triggers on the annotation rows; those of the class filter kept): no shape is loaded,
// so 100k images cost 100k short rows.
// Then, with no database and no randomness:
// - images are ordered by a hash of (seed, image id), so the same seed and the same images give the
//   same split whatever order the rows arrive in, and adding images moves few others;
// - each split's size is its fraction of the images, rounded by largest remainder (sizes sum to
//   the count);
// - stratify (default true): classes from the rarest up, each class with at least as many images
//   as there are splits (of a fraction above 0) first gets one of its images, not yet placed, in
//   every split it is missing from. Images with several classes can make this impossible (three
//   images, three classes each on two of them, two splits): such classes are named in README.txt;
// - every other image, in hash order, goes to the split furthest below its size.
import { createHash } from 'node:crypto';
import { images } from '../../db/schema';
import { errors } from '../../errors';
import { SPLIT_NAMES, SPLIT_SUM_TOLERANCE, type ExportSplit, type SplitName } from '../../../contract/export';
import type { RunState } from '../../formats/write-common';

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

function hashKey(seed: number, id: string): string {
  return createHash('sha1').update(`${seed}:${id}`).digest('hex');
}

/** The split of each image (pure: the same members and request give the same answer in any order). */
export function assignSplits(members: readonly ImageClasses[], split: ExportSplit): Omit<SplitPlan, 'of'> & { byId: Map<string, SplitName> } {
  const names: SplitName[] = split.test !== undefined ? [...SPLIT_NAMES] : ['train', 'val'];
  const fractions = names.map((n) => split[n] ?? 0);
  const seed = split.seed ?? 0;
  const stratify = split.stratify ?? true;
  const order = members.map((m) => ({ m, key: hashKey(seed, m.id) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.m.id < b.m.id ? -1 : 1));
  const targets = splitSizes(fractions, order.length);
  const placed = new Map<string, number>();
  const sizes = names.map(() => 0);
  const place = (id: string, i: number) => {
    placed.set(id, i);
    sizes[i]! += 1;
  };
  const unspread: string[] = [];
  const active = fractions.flatMap((f, i) => (f > 0 ? [i] : []));
  if (stratify && active.length > 1) {
    const byClass = new Map<string, string[]>();
    for (const { m } of order) {
      for (const c of new Set(m.classes)) {
        let list = byClass.get(c);
        if (!list) byClass.set(c, (list = []));
        list.push(m.id);
      }
    }
    const rarestFirst = [...byClass].filter(([, ids]) => ids.length >= active.length).sort(([a, x], [b, y]) => x.length - y.length || (a < b ? -1 : a > b ? 1 : 0));
    for (const [cls, ids] of rarestFirst) {
      const present = new Set(ids.flatMap((id) => (placed.has(id) ? [placed.get(id)!] : [])));
      let next = 0;
      for (const i of active) {
        if (present.has(i)) continue;
        while (next < ids.length && placed.has(ids[next]!)) next += 1;
        if (next >= ids.length) {
          unspread.push(cls);
          break;
        }
        place(ids[next]!, i);
      }
    }
  }
  for (const { m } of order) {
    if (placed.has(m.id)) continue;
    let best = 0;
    for (let i = 1; i < names.length; i++) if (targets[i]! - sizes[i]! > targets[best]! - sizes[best]!) best = i;
    place(m.id, best);
  }
  const byId = new Map<string, SplitName>();
  for (const [id, i] of placed) byId.set(id, names[i]!);
  const counts = { train: 0, val: 0, test: 0 } as Record<SplitName, number>;
  names.forEach((n, i) => (counts[n] = sizes[i]!));
  return { names, seed, stratify, counts, unspread, byId };
}

/** The exported images with their exported classes (the first pass), then their split. */
export async function planSplit(s: Pick<RunState, 'ctx' | 'where' | 'classFilter'>, split: ExportSplit): Promise<SplitPlan> {
  const rows = await s.ctx.db.select({ id: images.id, classes: images.classNames }).from(images).where(s.where);
  const filter = s.classFilter;
  const members = rows.map((r) => ({ id: r.id, classes: filter ? r.classes.filter((c) => filter.has(c)) : r.classes }));
  const { byId, ...plan } = assignSplits(members, split);
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
