// CVAT's mask RLE -> COCO's, run by run, never pixel by pixel (issue 30: a 1 KB file declaring a
// 20000 x 20000 mask froze the server while a bitmap of its box was filled and walked).
//
// CVAT counts alternate background / foreground over the mask's own box (left, top, width,
// height), row by row (row-major), starting with background. COCO counts alternate over the whole
// image column by column (column-major). Each foreground run of CVAT covers a part of one row, then
// maybe whole rows, then a part of a last row: at most three blocks of rows x columns. Those blocks
// never overlap (each pixel is in one run), so sweeping the columns from left to right, the rows
// that are set in a column are a set of disjoint ranges that changes only where a block starts or
// ends. Between two such places every column is the same, and is written out once per column
// (or as one run when the column is entirely set or empty). The work is bounded by the number of
// runs read and written, both capped, not by the number of pixels.
import { MAX_IMAGE_PIXELS } from '../../../contract/images';
import { MAX_IMPORT_MASK_RUNS } from '../../../contract/imports';
import { RunBuilder } from '../../../contract/rle';

/** A mask refused without being converted; its message is the report line's reason. */
export class MaskRefused extends Error {}

interface Block {
  x: number;
  ya: number;
  yb: number;
  add: boolean;
}

const pixels = (n: number) => n.toLocaleString('en-US');

function checkSizes(counts: readonly number[], width: number, height: number, imageWidth: number, imageHeight: number): void {
  if (imageWidth * imageHeight > MAX_IMAGE_PIXELS) {
    throw new MaskRefused(`the image is declared as ${imageWidth}x${imageHeight} pixels, more than the ${pixels(MAX_IMAGE_PIXELS)} pixels an image may have`);
  }
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new MaskRefused(`the mask's box is ${width}x${height} pixels, more than the ${pixels(MAX_IMAGE_PIXELS)} pixels an image may have`);
  }
  if (counts.length > MAX_IMPORT_MASK_RUNS) throw new MaskRefused(`the mask has ${pixels(counts.length)} runs; at most ${pixels(MAX_IMPORT_MASK_RUNS)} are read`);
  let sum = 0;
  for (const c of counts) sum += c;
  if (sum !== width * height) throw new MaskRefused(`rle counts sum to ${sum}, expected width*height = ${width * height}`);
}

/** The blocks (start and end column, rows [ya, yb) in image coordinates) of CVAT's foreground runs, cut at the image. */
function blocksOf(counts: readonly number[], left: number, top: number, width: number, imageWidth: number, imageHeight: number): { blocks: Block[]; area: number } {
  const blocks: Block[] = [];
  let area = 0;
  const push = (r0: number, r1: number, c0: number, c1: number) => {
    const ya = Math.max(0, top + r0);
    const yb = Math.min(imageHeight, top + r1);
    const xa = Math.max(0, left + c0);
    const xb = Math.min(imageWidth, left + c1);
    if (yb <= ya || xb <= xa) return;
    blocks.push({ x: xa, ya, yb, add: true }, { x: xb, ya, yb, add: false });
  };
  let pos = 0;
  counts.forEach((c, i) => {
    if (i % 2 === 1 && c > 0) {
      area += c;
      const [r0, c0] = [Math.floor(pos / width), pos % width];
      const last = pos + c - 1;
      const [r1, c1] = [Math.floor(last / width), (last % width) + 1];
      if (r0 === r1) push(r0, r0 + 1, c0, c1);
      else {
        push(r0, r0 + 1, c0, width);
        if (r1 > r0 + 1) push(r0 + 1, r1, 0, width);
        push(r1, r1 + 1, 0, c1);
      }
    }
    pos += c;
  });
  // Removals before additions at one column: a block may end where another starts on the same rows.
  blocks.sort((a, b) => a.x - b.x || Number(a.add) - Number(b.add));
  return { blocks, area };
}

/** The set rows of a column as sorted ranges [a, b), touching ones joined. */
function columnRanges(active: Map<number, number>): [number, number][] {
  const out: [number, number][] = [];
  for (const ya of [...active.keys()].sort((a, b) => a - b)) {
    const yb = active.get(ya)!;
    const prev = out[out.length - 1];
    if (prev && prev[1] === ya) prev[1] = yb;
    else out.push([ya, yb]);
  }
  return out;
}

/**
 * CVAT's mask RLE (counts over the mask's box, row-major, background first) -> COCO's counts over
 * the whole image (column-major, background first). Pixels outside the image are cut off
 * (`clipped`). Throws MaskRefused, with the reason, for an image or box over MAX_IMAGE_PIXELS,
 * counts that do not cover the box, or more than MAX_IMPORT_MASK_RUNS runs read or written.
 */
export function cvatMaskToCoco(counts: readonly number[], left: number, top: number, width: number, height: number, imageWidth: number, imageHeight: number): { counts: number[]; clipped: boolean } {
  checkSizes(counts, width, height, imageWidth, imageHeight);
  const { blocks, area } = blocksOf(counts, left, top, width, imageWidth, imageHeight);
  const runs = new RunBuilder();
  const active = new Map<number, number>();
  let written = 0;
  /** Columns [from, to), all alike: the active rows. */
  const emit = (from: number, to: number) => {
    const n = to - from;
    if (n <= 0) return;
    const ranges = columnRanges(active);
    if (ranges.length === 0) return runs.append(0, n * imageHeight);
    if (ranges.length === 1 && ranges[0]![0] === 0 && ranges[0]![1] === imageHeight) return runs.append(1, n * imageHeight);
    written += n * ranges.length;
    if (written > MAX_IMPORT_MASK_RUNS) throw new MaskRefused(`the mask has more than ${pixels(MAX_IMPORT_MASK_RUNS)} runs once written column by column`);
    for (let i = 0; i < n; i++) {
      let y = 0;
      for (const [a, b] of ranges) {
        runs.append(0, a - y);
        runs.append(1, b - a);
        y = b;
      }
      runs.append(0, imageHeight - y);
    }
  };
  let x = 0;
  for (const block of blocks) {
    emit(x, block.x);
    x = Math.max(x, block.x);
    if (block.add) active.set(block.ya, block.yb);
    else active.delete(block.ya);
  }
  emit(x, imageWidth);
  return { counts: runs.finish(), clipped: runs.area !== area };
}
