// Writes foreground runs, given in increasing order of linear index, as COCO RLE counts into the
// result vector. Touching runs merge (within a column or across a column boundary), so callers
// can emit column by column. One writer at a time: begin, emit..., end.
import { newResult, vecLen, vecPush } from './mem';

let res: usize = 0;
let pos: u64 = 0; // end of the last written foreground run
let runS: u64 = 0;
let runE: u64 = 0; // pending run [runS, runE), empty when equal

export function runsBegin(): void {
  res = newResult(1024);
  pos = 0;
  runS = runE = 0;
}

/** Adds the foreground run [s, e) (s >= the end of every run emitted before). */
export function runEmit(s: u64, e: u64): void {
  if (e <= s) return;
  if (s == runE && runE > runS) {
    runE = e;
    return;
  }
  flush();
  runS = s;
  runE = e;
}

function flush(): void {
  if (runE > runS) {
    vecPush(res, <i32>(runS - pos));
    vecPush(res, <i32>(runE - runS));
    pos = runE;
  }
  runS = runE = 0;
}

/** Closes the counts of an n-pixel mask (pycocotools: no trailing empty run); returns their number. */
export function runsEnd(n: u64): i32 {
  flush();
  if (pos < n || vecLen(res) == 0) vecPush(res, <i32>(n - pos));
  return vecLen(res);
}
