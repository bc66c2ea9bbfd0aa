// The pure parts of the YOLO and VOC exports: names, escaping, numbers and shape conversion.
import { parse as parseYaml } from 'yaml';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { encodeMask } from '../../contract/rle';
import { loadKernelsNode } from '../../kernels/node';
import { boxToVoc, ringArea, vocToBox } from './shapes';
import { splitBridged } from './rings';
import { toVoc, xmlText } from './voc/write';
import { decimal, exportName, stemOf } from './write-common';
import { toYolo, yamlString } from './yolo/write';

const ID = '0b9f4f1e-3c55-4a57-9d43-1f0a4c3e9a21';

describe('names', () => {
  it('takes the stem without the last extension', () => {
    expect(['a.png', 'a.b.png', 'noext', '.hidden', 'x.'].map(stemOf)).toEqual(['a', 'a.b', 'noext', '.hidden', 'x']);
  });

  it('keeps an image its name unless its stem is shared or ends like the suffix', () => {
    expect(exportName({ id: ID, filename: 'cat.png' }, new Set())).toEqual({ stem: 'cat', fileName: 'cat.png' });
    expect(exportName({ id: ID, filename: 'cat.png' }, new Set([ID]))).toEqual({ stem: `cat-${ID}`, fileName: `cat-${ID}.png` });
    // A kept name never looks like a renamed one: a stem ending in an id is renamed too.
    const tricky = `cat-${'1'.repeat(8)}-2222-3333-4444-${'5'.repeat(12)}`;
    expect(exportName({ id: ID, filename: `${tricky}.png` }, new Set()).stem).toBe(`${tricky}-${ID}`);
  });
});

describe('text', () => {
  it('escapes XML text and replaces what XML 1.0 cannot carry', async () => {
    const raw = 'a & b <c> "d" \'e\' \u0001 \ud800 ü 😀';
    const escaped = xmlText(raw);
    expect(escaped).toBe('a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; \ufffd \ufffd ü 😀');
    let text = '';
    const parser = new SaxesParser();
    parser.on('text', (t) => (text += t));
    parser.write(`<x>${escaped}</x>`).close();
    expect(text).toBe('a & b <c> "d" \'e\' \ufffd \ufffd ü 😀');
  });

  it('writes YAML strings that read back as themselves', () => {
    for (const s of ['car', 'wheel "front"', 'a: b', '- x', '#hash', 'yes', '1', '', 'ü\u0085\u00a0\ufeff', 'tab\there', 'back\\slash']) {
      expect(parseYaml(`k: ${yamlString(s)}`)).toEqual({ k: s });
    }
    expect(yamlString('\ufeff')).toBe('"\\ufeff"');
  });

  it('writes decimals without trailing zeros or exponents', () => {
    expect([decimal(12), decimal(3.5), decimal(1 / 3), decimal(-0), decimal(1e-7), decimal(1e9 + 0.25)]).toEqual(['12', '3.5', '0.333333', '0', '0', '1000000000.25']);
  });
});

describe('voc boxes', () => {
  it('uses the 1-based last-pixel rule both ways', () => {
    expect(boxToVoc({ x: 0, y: 0, w: 40, h: 30 })).toEqual([1, 1, 40, 30]);
    const b = { x: 2.25, y: 3.5, w: 10.125, h: 5.75 };
    const back = vocToBox(...boxToVoc(b));
    for (const k of ['x', 'y', 'w', 'h'] as const) expect(Math.abs(back[k] - b[k])).toBeLessThan(1e-9);
  });

  it('boxes every shape but a point, clipped to the image', () => {
    const size = { width: 40, height: 30 };
    expect(toVoc({ bounding_box: { x: -5, y: 10, w: 10, h: 30 } }, size)).toEqual({ kind: 'object', box: { x: 0, y: 10, w: 5, h: 20 }, clipped: true });
    expect(toVoc({ bounding_box: { x: 50, y: 10, w: 10, h: 3 } }, size)).toEqual({ kind: 'invalid', reason: 'no area inside the image' });
    expect(toVoc({ bounding_box: { x: 0, y: 0, w: 0, h: 0 }, polyline: { path: [[1, 2], [5, 9], [3, 4]] } }, size)).toMatchObject({ box: { x: 1, y: 2, w: 4, h: 7 } });
    expect(toVoc({ bounding_box: { x: 5, y: 5, w: 0, h: 0 }, keypoint: { x: 5, y: 5 } }, size)).toEqual({ kind: 'keypoint' });
    const empty = { size: [30, 40], counts: [1200] };
    expect(toVoc({ bounding_box: { x: 0, y: 0, w: 0, h: 0 }, segmentation: empty }, size)).toEqual({ kind: 'invalid', reason: 'empty mask' });
  });
});

describe('yolo rows', () => {
  const size = { width: 40, height: 30 };

  it('traces a mask of two parts with a hole into one line: hole and parts joined by zero-width bridges, cut back into them on reading', async () => {
    const k = await loadKernelsNode();
    const px = new Uint8Array(40 * 30);
    // A 6 x 6 square with a 2 x 2 hole at x 2..7, y 2..7, and a 2 x 2 square at x 20..21, y 10..11.
    for (let x = 2; x <= 7; x++) for (let y = 2; y <= 7; y++) if (!(x >= 4 && x <= 5 && y >= 4 && y <= 5)) px[x * 30 + y] = 1;
    for (let x = 20; x <= 21; x++) for (let y = 10; y <= 11; y++) px[x * 30 + y] = 1;
    // Tolerance 0: the exact pixel-edge trace (the export's default simplifies, MASK_POLYGON_TOLERANCE).
    const c = toYolo({ bounding_box: { x: 2, y: 2, w: 20, h: 10 }, segmentation: { size: [30, 40], counts: encodeMask(px, 30, 40) } }, size, true, k, 0);
    expect(c).toMatchObject({ kind: 'rows', holes: true, parts: 2 });
    if (c.kind !== 'rows') return;
    expect(c.rows).toHaveLength(1);
    const ring = Array.from({ length: c.rows[0]!.length / 2 }, (_, i): [number, number] => [Math.round(c.rows[0]![2 * i]! * 40), Math.round(c.rows[0]![2 * i + 1]! * 30)]);
    const corners = (r: [number, number][]) => r.map(([x, y]) => `${x},${y}`).sort();
    const back = splitBridged(ring);
    expect(back.map((p) => [corners(p.path), p.holes.map(corners)]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      [['2,2', '2,8', '8,2', '8,8'], [['4,4', '4,6', '6,4', '6,6']]],
      [['20,10', '20,12', '22,10', '22,12'], []],
    ]);
    // Filled even-odd as it is written (bridges and all), the line draws the mask's pixels.
    expect(Array.from(k.polygonsToMask([{ path: ring, holes: [] }], 30, 40))).toEqual(Array.from(px));
    // In box form (yolo_task detect), one box per shape: the whole mask's bounding box (x 2..21, y 2..11).
    const boxes = toYolo({ bounding_box: { x: 2, y: 2, w: 20, h: 10 }, segmentation: { size: [30, 40], counts: encodeMask(px, 30, 40) } }, size, false, k);
    expect(boxes).toMatchObject({ kind: 'rows', rows: [[12 / 40, 7 / 30, 20 / 40, 10 / 30]] });
  });

  it('keeps a polygon\'s holes in segment lines (keyholed) and writes its outer box in detect lines', async () => {
    const k = await loadKernelsNode();
    const polygon = { path: [[10, 5], [30, 5], [30, 25], [10, 25]], holes: [[[15, 10], [25, 10], [25, 20], [15, 20]]] };
    const c = toYolo({ bounding_box: { x: 10, y: 5, w: 20, h: 20 }, polygon }, size, true, k);
    expect(c).toMatchObject({ kind: 'rows', holes: true, parts: 1 });
    if (c.kind !== 'rows') return;
    const ring = Array.from({ length: c.rows[0]!.length / 2 }, (_, i): [number, number] => [c.rows[0]![2 * i]! * 40, c.rows[0]![2 * i + 1]! * 30]);
    expect(ringArea(ring)).toBeCloseTo(400 - 100, 6);
    expect(toYolo({ bounding_box: { x: 10, y: 5, w: 20, h: 20 }, polygon }, size, false, k)).toMatchObject({ rows: [[0.5, 0.5, 0.5, 20 / 30]] });
  });

  it('clips polygons to the image and refuses shapes with no area inside it', async () => {
    const k = await loadKernelsNode();
    const c = toYolo({ bounding_box: { x: 0, y: 0, w: 0, h: 0 }, polygon: { path: [[-10, 0], [20, 0], [20, 60]] } }, size, true, k);
    expect(c).toEqual({ kind: 'rows', rows: [[0, 0, 0.5, 0, 0.5, 1]], clipped: true, holes: false, parts: 1 });
    expect(toYolo({ bounding_box: { x: 0, y: 0, w: 0, h: 0 }, polygon: { path: [[50, 0], [60, 0], [60, 10]] } }, size, true, k)).toEqual({ kind: 'invalid', reason: 'no area inside the image' });
    expect(toYolo({ bounding_box: { x: 1, y: 1, w: 0, h: 5 } }, size, false, k)).toEqual({ kind: 'invalid', reason: 'no area inside the image' });
    expect(toYolo({ bounding_box: { x: 0, y: 0, w: 9, h: 9 }, polyline: { path: [[0, 0], [9, 9]] } }, size, true, k)).toEqual({ kind: 'polyline' });
  });
});
