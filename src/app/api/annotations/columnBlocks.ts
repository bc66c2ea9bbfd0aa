// load-data's compact encoding on the client (contract/annotation-columns.ts): the body is parsed
// in slices like the plain one (its `annotations` are blocks of 2,000 shapes), then the blocks are
// decoded back into stored annotations, a few per task, so the main thread never holds a long task.
import { COLUMNS_FORMAT, decodeBlock, type ColumnBlock } from '../../../contract/annotation-columns';
import { nextTask } from '../../../engine';
import type { SliceOptions } from './sliceJson';

/** The shape count of a columns body (it leads the text), or null for a plain body. */
export function columnsCount(text: string): number | null {
  if (!text.startsWith(`{"format":"${COLUMNS_FORMAT}"`)) return null;
  const m = /"count":(\d+)/.exec(text.slice(0, 200));
  return m ? Number(m[1]) : null;
}

/** Progress callbacks of a columns body's parse, counted in shapes rather than blocks. */
export function shapeProgress(count: number, options: SliceOptions): SliceOptions {
  return {
    ...options,
    onCount: () => options.onCount?.(count),
    onProgress: (done, total) => options.onProgress?.(total > 0 ? Math.round((done / total) * count) : count, count),
  };
}

/** The blocks' annotations in order; undefined when `isCancelled` said so between blocks. */
export async function decodeBlocks(blocks: readonly ColumnBlock[], options: SliceOptions = {}): Promise<Record<string, unknown>[] | undefined> {
  const { budgetMs = 8, isCancelled } = options;
  const out: Record<string, unknown>[] = [];
  let t0 = performance.now();
  for (const block of blocks) {
    for (const a of decodeBlock(block)) out.push(a);
    if (performance.now() - t0 > budgetMs) {
      await nextTask();
      if (isCancelled?.()) return undefined;
      t0 = performance.now();
    }
  }
  return out;
}
