import { describe, expect, it } from 'vitest';
import { parseJsonInSlices } from './sliceJson';

const tricky = [
  { id: 'a', name: 'has "quotes", [brackets] and {braces}', bounding_box: { x: 1, y: 2, w: 3, h: 4 } },
  { id: 'b\\', name: 'ends in a backslash \\', polygon: { path: [[0, 0], [1.5e3, -2], [3, 4]] } },
  { id: 'c', name: 'unicode ✓ \u2028 é', attributes: [null, true, false, 0, [], {}, [[[]]], 'a,b'] },
  'a string element, with a comma',
  12.5,
  null,
  [1, [2, [3]]],
];

async function same(text: string, key = 'annotations') {
  const progress: number[] = [];
  let count = -1;
  const got = await parseJsonInSlices(text, key, { budgetMs: 0, onCount: (n) => (count = n), onProgress: (d) => progress.push(d) });
  expect(got).toEqual(JSON.parse(text));
  return { count, progress };
}

describe('parseJsonInSlices', () => {
  it('gives what JSON.parse gives, whatever the members and their order', async () => {
    expect((await same(JSON.stringify({ annotations: tricky, version: 3, saved_at: null }))).count).toBe(tricky.length);
    await same(JSON.stringify({ version: 3, notes: { annotations: [1] }, 'annotations': tricky, saved_at: 'x"y' }));
    await same(JSON.stringify({ version: 3, annotations: tricky }, null, 2));
    await same(`{ "a" : "annotations" , "annotations" : [ ] , "b" : [ 1 ] }`);
    await same(`{"annotations":[]}`);
    await same(`{"annot\\u0061tions":[1,2]}`);
    await same(`  {"annotations" :\n[ {"x": 1} ,\t{"y":[2]} ]}  `);
  });

  it('parses in several slices and reports progress up to the element count', async () => {
    const big = Array.from({ length: 20_000 }, (_, i) => ({ id: `b-${i}`, name: i % 7 ? 'car' : 'a "quoted], name', bounding_box: { x: i, y: i / 3, w: 10, h: 12 } }));
    const { count, progress } = await same(JSON.stringify({ annotations: big, version: 9, saved_at: '2024-01-01T00:00:00Z' }));
    expect(count).toBe(20_000);
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.at(-1)).toBe(20_000);
  });

  it('parses anything else in one go, and throws on malformed JSON', async () => {
    await same('[1,2,3]');
    await same('{"other":[1]}');
    await same('null');
    await expect(parseJsonInSlices('{"annotations":[{"a":1},]}', 'annotations')).rejects.toThrow(SyntaxError);
    await expect(parseJsonInSlices('{"annotations":[{"a":1}', 'annotations')).rejects.toThrow(SyntaxError);
    await expect(parseJsonInSlices('{"annotations":["abc', 'annotations')).rejects.toThrow(SyntaxError);
  });

  it('stops when cancelled', async () => {
    const big = JSON.stringify({ annotations: Array.from({ length: 50_000 }, (_, i) => ({ id: String(i) })) });
    let calls = 0;
    expect(await parseJsonInSlices(big, 'annotations', { budgetMs: 0, isCancelled: () => ++calls > 1 })).toBeUndefined();
  });
});
