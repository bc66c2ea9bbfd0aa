// Correctness at 100k shapes (timings are printed for information only; speed targets belong
// in bench/, never in tests).
import { describe, expect, it } from 'vitest';
import { Editor, hitAnnotation, type EditorAnnotation } from '../../src/engine';

const N = 100_000;

function bigDocument(): EditorAnnotation[] {
  const list: EditorAnnotation[] = [];
  // A 400 x 250 grid of small shapes over a 20k x 12.5k image, cycling through kinds.
  for (let i = 0; i < N; i++) {
    const x = (i % 400) * 50, y = Math.floor(i / 400) * 50;
    const id = `a${i}`;
    switch (i % 4) {
      case 0: list.push({ id, type: 'box', class: 'car', x, y, width: 30, height: 20 }); break;
      case 1: list.push({ id, type: 'polygon', class: 'roof', points: [[x, y], [x + 30, y], [x + 30, y + 30], [x, y + 30]], holes: [[[x + 10, y + 10], [x + 20, y + 10], [x + 20, y + 20], [x + 10, y + 20]]] }); break;
      case 2: list.push({ id, type: 'polyline', class: 'lane', points: [[x, y], [x + 30, y + 30]] }); break;
      default: list.push({ id, type: 'keypoint', class: 'eye', x: x + 5, y: y + 5 });
    }
  }
  return list;
}

function time<T>(label: string, fn: () => T): T {
  const t0 = performance.now();
  const r = fn();
  console.log(`${label}: ${(performance.now() - t0).toFixed(2)} ms`);
  return r;
}

describe(`engine at ${N} shapes`, () => {
  it('loads, hit-tests, moves 1,000 shapes and undoes exactly', () => {
    const e = new Editor();
    const list = bigDocument();
    time('load', () => e.load(list));
    expect(e.annotationCount).toBe(N);

    // First query builds the index; later ones are cheap.
    time('first hit-test (builds the index)', () => e.hitTest(5, 5, 1));
    const probes: [number, number][] = [];
    for (let i = 0; i < 2000; i++) probes.push([(i * 7919) % 20000, (i * 104729) % 12500]);
    const results = time('2000 hit-tests', () => probes.map(([x, y]) => e.hitTestAll(x, y, 1)));
    // Same answers as a brute-force scan over every shape, topmost first.
    for (let i = 0; i < probes.length; i += 97) {
      const [x, y] = probes[i]!;
      const brute = list.filter((a) => hitAnnotation(a, x, y, 1)).map((a) => a.id).reverse();
      expect(results[i]).toEqual(brute);
    }
    // Holes at scale: the centre of a polygon cell is empty, its rim is not.
    expect(e.hitTest(50 + 15, 15, 1)).toBeNull();
    expect(e.hitTest(50 + 5, 15, 1)).toBe('a1');

    const before = e.getDocument();
    const ids = Array.from({ length: 1000 }, (_, k) => `a${k * 97}`);
    time('move 1000', () => e.execute('move', { ids, dx: 7, dy: -3 }));
    expect(e.getAnnotation('a0')).toMatchObject({ x: 7, y: -3 });
    // The moved shapes are found where they are now, without a full index rebuild.
    expect(e.hitTest(7 + 15, -3 + 10, 0)).toBe('a0');
    expect(e.hitTest(2, 2, 0)).toBeNull();
    time('undo move 1000', () => e.undo());
    expect(e.getDocument()).toEqual(before);
    time('redo move 1000', () => e.redo());
    expect(e.getAnnotation('a97')).toMatchObject({ points: [[50 * 97 + 7, -3], [50 * 97 + 37, -3], [50 * 97 + 37, 27], [50 * 97 + 7, 27]] });
  });

  it('single edits stay incremental: create, move, delete and undo at 100k', () => {
    const e = new Editor({ idGenerator: () => 'fresh' });
    e.load(bigDocument());
    e.hitTest(0, 0, 1);
    time('create 1', () => e.execute('create', { annotation: { id: 'fresh', type: 'box', class: 'x', x: 100000, y: 100000, width: 10, height: 10 } }));
    expect(e.hitTest(100005, 100005, 0)).toBe('fresh');
    expect(e.getOrderedIds().at(-1)).toBe('fresh');
    time('move 1', () => e.execute('move', { ids: ['a5'], dx: 1, dy: 1 }));
    time('delete 1', () => e.execute('delete', { ids: ['a123'] }));
    expect(e.annotationCount).toBe(N);
    time('undo delete 1', () => e.undo());
    expect(e.getOrderedIds()[123]).toBe('a123');
    expect(e.annotationCount).toBe(N + 1);
    // Marquee over one cell region, checked against bounds by hand.
    const inside = e.queryInside({ minX: -1, minY: -1, maxX: 101, maxY: 41 });
    expect(inside.sort()).toEqual(['a0', 'a1']); // a2 reaches x = 130, a5 was moved out of this row's cells
  });
});
