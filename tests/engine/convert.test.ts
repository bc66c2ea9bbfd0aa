import { describe, expect, it } from 'vitest';
import { StoredAnnotation, StoredAnnotations, storedKind } from '../../src/contract/annotations';
import { editorToStored, parseStoredAnnotationAt, parseStoredAnnotations, plainStoredToEditor, storedToEditor } from '../../src/engine/model/convert';
import { Editor, type EditorAnnotation } from '../../src/engine';

const stored: Record<string, unknown>[] = [
  { id: 'b1', name: 'car', bounding_box: { x: 10.5, y: 20, w: 30, h: 40 }, attributes: [{ name: 'occluded', value: true }] },
  {
    id: 'p1', name: 'building', bounding_box: { x: 0, y: 0, w: 100, h: 80 },
    polygon: { path: [[0, 0], [100, 0], [100, 80], [0, 80]], holes: [[[10, 10], [20, 10], [20, 20]]] },
    attributes: [],
  },
  { id: 'p2', name: 'roof', bounding_box: { x: 1, y: 2, w: 3, h: 4 }, polygon: { path: [[1, 2], [4, 2], [4, 6]] } },
  { id: 'l1', name: 'lane', bounding_box: { x: 5, y: 5, w: 10, h: 0 }, polyline: { path: [[5, 5], [15, 5]] }, attributes: ['solid'] },
  { id: 'k1', name: 'eye', bounding_box: { x: 7, y: 8, w: 0, h: 0 }, keypoint: { x: 7, y: 8 }, attributes: [] },
  { id: 's1', name: 'cat', bounding_box: { x: 0, y: 1, w: 1, h: 2 }, segmentation: { size: [3, 4], counts: [1, 3, 8] }, attributes: [] },
  { id: 's2', name: 'dog', bounding_box: { x: 0, y: 0, w: 2, h: 2 }, segmentation: { size: [2, 2], counts: '04' }, sam2_area: 4, attributes: [] },
];

describe('stored <-> editor conversion', () => {
  it('round-trips every kind losslessly (stored -> editor -> stored)', () => {
    for (const s of stored) {
      const parsed = StoredAnnotation.parse(s);
      expect(editorToStored(storedToEditor(parsed))).toEqual(s);
    }
  });

  it('keeps an extra key named __proto__ as data through the editor and back', () => {
    const s = JSON.parse('{"id":"x1","name":"car","bounding_box":{"x":0,"y":0,"w":1,"h":1},"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const back = editorToStored(storedToEditor(s as StoredAnnotation)) as Record<string, unknown>;
    expect(Object.keys(back)).toContain('__proto__');
    expect(JSON.parse(JSON.stringify(back))).toEqual(s);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('maps each kind to the editor form of spec section 3', () => {
    const editor = parseStoredAnnotations(stored);
    expect(editor.map((a) => a.type)).toEqual(['box', 'polygon', 'polygon', 'polyline', 'keypoint', 'segmentation', 'segmentation']);
    expect(editor[0]).toEqual({ id: 'b1', type: 'box', class: 'car', x: 10.5, y: 20, width: 30, height: 40, attributes: [{ name: 'occluded', value: true }] });
    expect(editor[5]).toMatchObject({ type: 'segmentation', rle: { size: [3, 4], counts: [1, 3, 8] }, x: 0, y: 1, width: 1, height: 2 });
    // Unknown keys survive in `extra`.
    expect(editor[6]!.extra).toEqual({ sam2_area: 4 });
    expect(storedKind(StoredAnnotation.parse(stored[0]))).toBe('box');
  });

  it('round-trips editor -> stored -> editor for every kind', () => {
    const editor: EditorAnnotation[] = [
      { id: 'a', type: 'box', class: 'c', x: 1, y: 2, width: 10, height: 12, attributes: [] },
      { id: 'b', type: 'polygon', class: 'c', points: [[0, 0], [5, 0], [5, 5]], holes: [], attributes: [] },
      { id: 'c', type: 'polyline', class: 'c', points: [[0, 0], [5, 5], [9, 1]] },
      { id: 'd', type: 'keypoint', class: 'c', x: 3.25, y: 4.5 },
      { id: 'e', type: 'segmentation', class: 'c', rle: { size: [2, 3], counts: [2, 2, 2] }, x: 1, y: 0, width: 1, height: 2, attributes: [{ k: [1, null] }] },
    ];
    for (const a of editor) expect(storedToEditor(StoredAnnotation.parse(editorToStored(a)))).toEqual(a);
  });

  it('derives the bounding box of paths from their geometry', () => {
    const s = editorToStored({ id: 'x', type: 'polygon', class: 'c', points: [[5, 7], [15, 2], [9, 20]] });
    expect(s.bounding_box).toEqual({ x: 5, y: 2, w: 10, h: 18 });
  });

  it('does not alias the input (editing the editor form leaves the stored object alone)', () => {
    const s = StoredAnnotation.parse(stored[1]);
    const e = storedToEditor(s) as unknown as { points: number[][] };
    e.points[0]![0] = 999;
    expect(s.polygon!.path[0]![0]).toBe(0);
  });
});

describe('contract validation', () => {
  const bb = { x: 0, y: 0, w: 1, h: 1 };
  const bad: [string, unknown][] = [
    ['polygon with 2 points', { id: 'a', name: 'c', bounding_box: bb, polygon: { path: [[0, 0], [1, 1]] } }],
    ['hole with 2 points', { id: 'a', name: 'c', bounding_box: bb, polygon: { path: [[0, 0], [1, 1], [0, 1]], holes: [[[0, 0], [1, 1]]] } }],
    ['polyline with 1 point', { id: 'a', name: 'c', bounding_box: bb, polyline: { path: [[0, 0]] } }],
    ['NaN coordinate', { id: 'a', name: 'c', bounding_box: { x: NaN, y: 0, w: 1, h: 1 } }],
    ['Infinity in a path', { id: 'a', name: 'c', bounding_box: bb, polyline: { path: [[0, 0], [Infinity, 1]] } }],
    ['RLE counts not summing to h*w', { id: 'a', name: 'c', bounding_box: bb, segmentation: { size: [2, 2], counts: [1, 2] } }],
    ['compressed counts not summing to h*w', { id: 'a', name: 'c', bounding_box: bb, segmentation: { size: [2, 2], counts: '05' } }],
    ['truncated compressed counts', { id: 'a', name: 'c', bounding_box: bb, segmentation: { size: [2, 2], counts: '0X' } }],
    ['bad compressed characters', { id: 'a', name: 'c', bounding_box: bb, segmentation: { size: [2, 2], counts: '0~' } }],
    ['two shape keys', { id: 'a', name: 'c', bounding_box: bb, keypoint: { x: 0, y: 0 }, polyline: { path: [[0, 0], [1, 1]] } }],
    ['negative width', { id: 'a', name: 'c', bounding_box: { x: 0, y: 0, w: -1, h: 1 } }],
    ['missing id', { name: 'c', bounding_box: bb }],
  ];
  for (const [what, value] of bad) {
    it(`rejects ${what}`, () => {
      expect(StoredAnnotation.safeParse(value).success).toBe(false);
    });
  }

  it('accepts all the examples and rejects duplicate ids in a list', () => {
    expect(StoredAnnotations.safeParse(stored).success).toBe(true);
    expect(StoredAnnotations.safeParse([stored[0], stored[0]]).success).toBe(false);
  });
});

describe('plain shapes checked without zod (the load fast path)', () => {
  /** The schema's verdict and conversion: what the fast path must reproduce exactly. */
  const viaZod = (v: unknown): EditorAnnotation | 'invalid' => {
    const r = StoredAnnotation.safeParse(v);
    return r.success ? storedToEditor(r.data) : 'invalid';
  };
  const bb = { x: 1, y: 2, w: 3, h: 4 };
  const ring = [[0, 0], [4, 0], [4, 3]];
  const plain: unknown[] = [
    { id: 'b', name: 'car', bounding_box: bb },
    { id: 'p', name: 'roof', bounding_box: bb, polygon: { path: ring } },
    { id: 'h', name: 'roof', bounding_box: bb, polygon: { path: [[0, 0], [9, 0], [9, 9], [0, 9]], holes: [ring, ring] } },
    { id: 'e', name: 'roof', bounding_box: bb, polygon: { path: ring, holes: [] } },
    { id: 'l', name: 'lane', bounding_box: { x: 0, y: 0, w: 0, h: 0 }, polyline: { path: [[0, 0], [1, 1]] } },
    { id: 'k', name: 'eye', bounding_box: { x: -5, y: 0.5, w: 0, h: 0 }, keypoint: { x: -5, y: 0.5 } },
    { id: 'x', name: '', bounding_box: { x: 0, y: 0, w: 1, h: 1, extra: 'dropped' }, polygon: { path: ring, note: 1 } },
  ];
  // Everything else goes through zod: attributes, masks, unknown keys, and every invalid value.
  const other: unknown[] = [
    ...stored.filter((s) => 'attributes' in s || 'segmentation' in s),
    null, 3, 'box', [], [plain[0]],
    { id: '', name: 'c', bounding_box: bb },
    { id: 7, name: 'c', bounding_box: bb },
    { id: 'a', name: null, bounding_box: bb },
    { id: 'a', name: 'c' },
    { id: 'a', name: 'c', bounding_box: [1, 2, 3, 4] },
    { id: 'a', name: 'c', bounding_box: { x: 1, y: 2, w: 3 } },
    { id: 'a', name: 'c', bounding_box: { x: '1', y: 2, w: 3, h: 4 } },
    { id: 'a', name: 'c', bounding_box: { x: 1, y: 2, w: 3, h: -0.5 } },
    { id: 'a', name: 'c', bounding_box: { x: NaN, y: 2, w: 3, h: 4 } },
    { id: 'a', name: 'c', bounding_box: bb, polygon: null },
    { id: 'a', name: 'c', bounding_box: bb, polygon: { path: ring.slice(0, 2) } },
    { id: 'a', name: 'c', bounding_box: bb, polygon: { path: [[0, 0, 0], [1, 0], [1, 1]] } },
    { id: 'a', name: 'c', bounding_box: bb, polygon: { path: [[0, 0], [1], [1, 1]] } },
    { id: 'a', name: 'c', bounding_box: bb, polygon: { path: [[0, 0], [1, Infinity], [1, 1]] } },
    { id: 'a', name: 'c', bounding_box: bb, polygon: { path: [[0, 0], { 0: 1, 1: 1 }, [1, 1]] } },
    { id: 'a', name: 'c', bounding_box: bb, polygon: { path: ring, holes: [ring.slice(0, 2)] } },
    { id: 'a', name: 'c', bounding_box: bb, polygon: { path: ring, holes: ring } },
    { id: 'a', name: 'c', bounding_box: bb, polygon: { path: ring, holes: {} } },
    { id: 'a', name: 'c', bounding_box: bb, polygon: { path: ring }, polyline: { path: ring } },
    { id: 'a', name: 'c', bounding_box: bb, polyline: { path: [[0, 0]] } },
    { id: 'a', name: 'c', bounding_box: bb, polyline: 'x' },
    { id: 'a', name: 'c', bounding_box: bb, keypoint: { x: 1 } },
    { id: 'a', name: 'c', bounding_box: bb, keypoint: [1, 2] },
    { id: 'a', name: 'c', bounding_box: bb, attributes: [] },
    { id: 'a', name: 'c', bounding_box: bb, sam2_area: 3 },
  ];

  it('gives the same annotation as zod + storedToEditor for plain shapes, taking the paths as they are', () => {
    for (const v of plain) {
      const fast = plainStoredToEditor(v);
      expect(fast).not.toBeNull();
      expect(fast).toEqual(viaZod(v));
      expect(parseStoredAnnotationAt(v, 0)).toEqual(viaZod(v));
    }
    const p = plain[1] as { polygon: { path: number[][] } };
    const a = plainStoredToEditor(p) as unknown as { points: unknown[] };
    expect(a.points).toBe(p.polygon.path); // no copy: the load's surviving garbage
  });

  it('edits of a loaded shape never change the JSON it was loaded from (it shares its paths)', async () => {
    const json = structuredClone(plain.filter((v) => 'polygon' in (v as object) || 'polyline' in (v as object)));
    const before = JSON.stringify(json);
    const e = new Editor();
    await e.loadStoredAsync(json);
    for (const a of e.getAnnotations()) {
      if (a.type !== 'polygon' && a.type !== 'polyline') continue;
      e.execute('move-vertex', { ref: { id: a.id, ring: 0, index: 0 }, x: 1, y: 2 });
      e.execute('insert-vertex', { ref: { id: a.id, ring: 0, index: 1 }, x: 3, y: 4 });
      e.execute('delete-vertex', { ref: { id: a.id, ring: 0, index: 2 } });
      e.execute('move', { ids: [a.id], dx: 5, dy: 6 });
    }
    expect(JSON.stringify(e.getAnnotations())).not.toBe(JSON.stringify(json.map((v) => storedToEditor(StoredAnnotation.parse(v)))));
    expect(JSON.stringify(json)).toBe(before);
  });

  it('leaves everything else to zod, which accepts and rejects exactly as before', () => {
    for (const v of other) {
      expect(plainStoredToEditor(v)).toBeNull();
      const expected = viaZod(v);
      if (expected === 'invalid') expect(() => parseStoredAnnotationAt(v, 4), JSON.stringify(v)).toThrow();
      else expect(parseStoredAnnotationAt(v, 4)).toEqual(expected);
    }
  });

  it('never accepts a plain shape zod rejects (random mutations)', () => {
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const odd = [undefined, null, -1, 0, 1.5, NaN, Infinity, '1', [], {}, [1], [1, 2, 3], true];
    const mutate = (v: unknown, depth: number): unknown => {
      if (rand() < 0.15 || depth > 4) return odd[Math.floor(rand() * odd.length)];
      if (Array.isArray(v)) {
        const out = v.map((x) => (rand() < 0.3 ? mutate(x, depth + 1) : x));
        if (rand() < 0.1) out.pop();
        return out;
      }
      if (v && typeof v === 'object') {
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) if (rand() > 0.05) out[k] = rand() < 0.3 ? mutate(x, depth + 1) : x;
        return out;
      }
      return v;
    };
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const v = mutate(plain[i % plain.length], 0);
      const fast = plainStoredToEditor(v);
      if (fast) {
        accepted++;
        expect(fast).toEqual(viaZod(v));
      }
    }
    expect(accepted).toBeGreaterThan(100);
  });
});
