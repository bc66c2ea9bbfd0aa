import { describe, expect, it } from 'vitest';
import { LABEL_H, placeLabels, type LabelInput } from './labels';

const label = (ax: number, ay: number, extra: Partial<LabelInput> = {}): LabelInput => ({ text: 'car', color: 0xffadad, ax, ay, point: false, priority: false, ...extra });
const w60 = () => 60;

describe('placeLabels', () => {
  it('puts a label above the top-left corner, inside it at the top of the view, right of a keypoint', () => {
    const [above, inside, point] = placeLabels([label(100, 100), label(300, 5), label(200, 300, { point: true })], w60, 800, 600);
    expect(above).toMatchObject({ x: 99, y: 100 - 5 - LABEL_H });
    expect(inside).toMatchObject({ x: 299, y: 10 });
    expect(point).toMatchObject({ x: 209, y: 300 - LABEL_H / 2 });
  });

  it('keeps labels in the view', () => {
    const [p] = placeLabels([label(790, 300)], w60, 800, 600);
    expect(p!.x).toBe(740);
  });

  it('drops a label that overlaps one placed before it, unless it is hovered or selected', () => {
    const out = placeLabels([label(100, 100), label(110, 102), label(400, 100)], w60, 800, 600);
    expect(out.map((p) => p.input.ax)).toEqual([100, 400]);
    const sel = placeLabels([label(100, 100), label(110, 102, { priority: true })], w60, 800, 600);
    expect(sel.map((p) => p.input.ax)).toEqual([110]);
  });

  it('caps the count', () => {
    const many = Array.from({ length: 50 }, (_, i) => label(i * 100, 100 + (i % 5) * 30));
    expect(placeLabels(many, w60, 10_000, 600, 7)).toHaveLength(7);
  });
});
