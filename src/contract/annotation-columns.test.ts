import { describe, expect, it } from 'vitest';
import { decodeBlock, encodeBlock } from './annotation-columns';

/** JSON with sorted keys: two values print the same exactly when they are equal as JSON. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
}
const roundTrip = (list: Record<string, unknown>[]) => decodeBlock(JSON.parse(JSON.stringify(encodeBlock(list))));

let seed = 3;
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;

describe('load-data column blocks', () => {
  it('keep __proto__ as a key and an attribute name (issue 30, finding 12: it was dropped)', () => {
    // As stored and read back: JSON.parse gives __proto__ as an own key.
    const text =
      '[{"id":"p","name":"__proto__","bounding_box":{"x":1,"y":2,"w":3,"h":4},"__proto__":{"polluted":true},"attributes":[{"name":"__proto__","value":{"__proto__":1}}]},' +
      '{"id":"q","name":"car","bounding_box":{"x":1,"y":2,"w":3,"h":4},"polygon":{"path":[[0,0],[1,0],[1,1]]},"__proto__":[1]},' +
      '{"id":"w","name":"car","bounding_box":{"x":1,"y":2,"w":3,"h":4,"__proto__":2}}]';
    const back = roundTrip(JSON.parse(text) as Record<string, unknown>[]);
    expect(JSON.stringify(back)).toBe(text);
    for (const a of back) expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('give back every kind of shape exactly, at the scale the coordinates need', () => {
    for (const decimals of [0, 1, 2, 3]) {
      const r = (v: number) => Math.round(v * 10 ** decimals) / 10 ** decimals;
      const list = Array.from({ length: 200 }, (_, i) => {
        const x = r(rnd() * 20000), y = r(rnd() * 20000);
        const a: Record<string, unknown> = { id: `s${i}`, name: ['car', 'road', 'lane'][i % 3], bounding_box: { x, y, w: r(rnd() * 50), h: r(rnd() * 50) } };
        const ring = (n: number) => Array.from({ length: n }, () => [r(x + rnd() * 50), r(y + rnd() * 50)]);
        if (i % 5 === 1) a.polygon = { path: ring(3 + (i % 9)) };
        if (i % 5 === 2) a.polygon = { path: ring(6), holes: [ring(3), ring(4)] };
        if (i % 5 === 3) a.polyline = { path: ring(2 + (i % 4)) };
        if (i % 5 === 4) a.keypoint = { x: r(x + 3), y: r(y - 2) };
        if (i % 2 === 0) a.attributes = i % 4 === 0 ? [] : [{ key: 'occluded', value: true }];
        if (i % 7 === 0) a.metadata = { area: 12.5, tool_used: 'auto-annotate:builtin' };
        return a;
      });
      const back = roundTrip(list);
      expect(back.map(canonical)).toEqual(list.map(canonical));
      expect(encodeBlock(list).s).toBe(10 ** decimals);
    }
  });

  it('sends whole what the columns cannot hold, and keeps the order', () => {
    const list: Record<string, unknown>[] = [
      { id: 'a', name: 'car', bounding_box: { x: 1, y: 2, w: 3, h: 4 } },
      { id: 'mask', name: 'blob', bounding_box: { x: 0, y: 0, w: 2, h: 2 }, segmentation: { size: [2, 2], counts: [0, 4] } },
      { id: 'fine', name: 'car', bounding_box: { x: 0.1234567, y: 0, w: 1, h: 1 } },
      { id: 'extra', name: 'road', bounding_box: { x: 0, y: 0, w: 1, h: 1 }, polygon: { path: [[0, 0], [1, 0], [1, 1]], note: 'kept' } },
      { id: 'emptyholes', name: 'road', bounding_box: { x: 0, y: 0, w: 1, h: 1 }, polygon: { path: [[0, 0], [1, 0], [1, 1]], holes: [] } },
      { id: 'boxplus', name: 'car', bounding_box: { x: 0, y: 0, w: 1, h: 1, z: 3 } },
      { id: 7, name: 'car', bounding_box: { x: 0, y: 0, w: 1, h: 1 } },
      { id: 'strings', name: 'car', bounding_box: { x: '1', y: 0, w: 1, h: 1 } },
      { id: 'both', name: 'car', bounding_box: { x: 0, y: 0, w: 1, h: 1 }, polygon: { path: [] }, keypoint: { x: 0, y: 0 } },
      { id: 'neg', name: 'car', bounding_box: { x: -5.5, y: -0.5, w: 0, h: 0 }, keypoint: { x: -5.5, y: -0.5 } },
      { id: 'z', name: '', bounding_box: { x: 1e9, y: 2, w: 3, h: 4 }, attributes: [null, 'x', { deep: [1, 2] }] },
    ];
    const block = encodeBlock(list);
    expect(block.s).toBe(10);
    expect(roundTrip(list).map(canonical)).toEqual(list.map(canonical));
    // Those that do not fit travel whole.
    expect(block.k.filter((k) => k === 9)).toHaveLength(7);
    expect(roundTrip([])).toEqual([]);
  });

  it('is smaller than the plain JSON for dense polygons', () => {
    const list = Array.from({ length: 2000 }, (_, i) => {
      const x = Math.round(rnd() * 200000) / 10, y = Math.round(rnd() * 200000) / 10;
      return { id: `id-${i}`, name: 'car', bounding_box: { x, y, w: 40, h: 40 }, polygon: { path: Array.from({ length: 12 }, (_, k) => [Math.round((x + 20 + 20 * Math.cos(k)) * 10) / 10, Math.round((y + 20 + 20 * Math.sin(k)) * 10) / 10]) }, attributes: [] };
    });
    expect(JSON.stringify(encodeBlock(list)).length).toBeLessThan(0.7 * JSON.stringify(list).length);
  });
});
