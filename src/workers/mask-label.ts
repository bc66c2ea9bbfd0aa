// Where a mask's class label goes (issue 33 §3): on its largest part, not at its bounding box's
// corner, which is often on another object when a mask has a stray island. Found from the RLE's
// runs alone (no decoded pixels): each column's foreground runs are joined to the runs they touch
// in the column before (4-connected), with union-find; the label sits at the topmost pixel of
// the part with the most pixels (the leftmost part on a tie), as other shapes' labels sit at their top.
import { stringToCounts } from '../contract/rle';

/** The topmost pixel [x, y] of a mask's largest 4-connected part, or null for an empty mask. `counts` are COCO's (column-major, background first) over an image `height` px high. */
export function largestPartTop(counts: ArrayLike<number> | string, height: number): [number, number] | null {
  const runs = typeof counts === 'string' ? stringToCounts(counts) : counts;
  if (height <= 0) return null;
  // Foreground runs split at column ends (column, first row, row past the last), in typed arrays:
  // counted first, then filled (a brush stroke's mask asks again on every change while labelled).
  let n = 0, p = 0;
  for (let i = 0; i < runs.length; i++) {
    const len = runs[i]!;
    if (i % 2 === 1 && len > 0) n += Math.floor((p + len - 1) / height) - Math.floor(p / height) + 1;
    p += len;
  }
  if (n === 0) return null;
  const col = new Int32Array(n), r0 = new Int32Array(n), r1 = new Int32Array(n);
  let k = 0;
  p = 0;
  for (let i = 0; i < runs.length; i++) {
    const len = runs[i]!;
    if (i % 2 === 1) {
      let at = p;
      const end = p + len;
      while (at < end) {
        const c = Math.floor(at / height), row = at - c * height;
        const stop = Math.min(end, (c + 1) * height);
        col[k] = c;
        r0[k] = row;
        r1[k++] = row + stop - at;
        at = stop;
      }
    }
    p += len;
  }
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  // Two pointers over a column's runs and the previous column's (both in row order).
  let prevStart = 0, start = 0;
  while (start < n) {
    let end = start;
    while (end < n && col[end] === col[start]) end++;
    if (prevStart < start && col[prevStart] === col[start]! - 1) {
      let a = prevStart, b = start;
      while (a < start && b < end) {
        if (r0[a]! < r1[b]! && r0[b]! < r1[a]!) {
          const ra = find(a), rb = find(b);
          if (ra !== rb) parent[ra] = rb;
        }
        if (r1[a]! < r1[b]!) a++;
        else b++;
      }
    }
    prevStart = start;
    start = end;
  }
  // Areas by root; the first root reached in run order wins a tie (the leftmost part).
  const area = new Float64Array(n);
  for (let i = 0; i < n; i++) area[find(i)]! += r1[i]! - r0[i]!;
  let best = -1, bestArea = -1;
  for (let i = 0; i < n; i++) {
    const root = find(i);
    if (area[root]! > bestArea) [best, bestArea] = [root, area[root]!];
  }
  let top: [number, number] | null = null;
  for (let i = 0; i < n; i++) {
    if (find(i) !== best) continue;
    if (!top || r0[i]! < top[1] || (r0[i] === top[1] && col[i]! < top[0])) top = [col[i]!, r0[i]!];
  }
  return top;
}
