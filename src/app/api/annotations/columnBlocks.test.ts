// The editor's load path for the column encoding: the same annotations as the plain body, with
// progress counted in shapes, and cancellable between blocks.
import { describe, expect, it } from 'vitest';
import { COLUMNS_FORMAT, encodeBlock } from '../../../contract/annotation-columns';
import { parseLoadData } from './editorApi';

const shapes = Array.from({ length: 5000 }, (_, i) => ({
  id: `s${i}`,
  name: i % 2 ? 'road' : 'car',
  bounding_box: { x: i / 10, y: 1, w: 2, h: 3 },
  ...(i % 2 ? { polygon: { path: [[i / 10, 1], [i / 10 + 2, 1], [i / 10 + 2, 4]] } } : {}),
  attributes: [],
}));
const columnsBody = (list: Record<string, unknown>[]) => {
  const blocks = [];
  for (let i = 0; i < list.length; i += 2000) blocks.push(encodeBlock(list.slice(i, i + 2000)));
  return `{"format":"${COLUMNS_FORMAT}","count":${list.length},"version":4,"saved_at":"2026-11-26T00:00:00.000Z","annotations":${JSON.stringify(blocks)}}`;
};

describe('parseLoadData with the column encoding', () => {
  it('gives the same annotations, version and saved_at as the plain body, counting progress in shapes', async () => {
    const counts: number[] = [];
    const progress: number[] = [];
    const columns = await parseLoadData(columnsBody(shapes), { onCount: (n) => counts.push(n), onProgress: (done) => progress.push(done) });
    const plain = await parseLoadData(JSON.stringify({ annotations: shapes, version: 4, saved_at: '2026-11-26T00:00:00.000Z' }));
    expect(columns).toEqual(plain);
    expect(columns!.annotations).toHaveLength(5000);
    expect(counts).toEqual([5000]);
    expect(progress[progress.length - 1]).toBe(5000);
  });

  it('an empty image and a cancelled load', async () => {
    expect(await parseLoadData(columnsBody([]))).toEqual({ annotations: [], version: 4, saved_at: '2026-11-26T00:00:00.000Z' });
    expect(await parseLoadData(columnsBody(shapes), { isCancelled: () => true, budgetMs: 0 })).toBeUndefined();
  });
});
