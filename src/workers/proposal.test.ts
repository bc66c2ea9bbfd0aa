// Auto-Annotate's preview geometry (no GL): the mask with its hole, the box, the points.
import { describe, expect, it } from 'vitest';
import { FILL_STRIDE, LINE_STRIDE, lineOut, type ShapeGeometry } from './geometry';
import { NEGATIVE_POINT, POSITIVE_POINT, PROPOSAL_BLUE, proposalGeometry } from './proposal';

function fillArea(g: ShapeGeometry): number {
  let a = 0;
  const x = (v: number) => g.fill[v * FILL_STRIDE]!, y = (v: number) => g.fill[v * FILL_STRIDE + 1]!;
  for (let i = 0; i < g.fillIdx.length; i += 3) {
    const [p, q, r] = [g.fillIdx[i]!, g.fillIdx[i + 1]!, g.fillIdx[i + 2]!];
    a += Math.abs((x(q) - x(p)) * (y(r) - y(p)) - (x(r) - x(p)) * (y(q) - y(p))) / 2;
  }
  return a;
}

describe('proposal geometry', () => {
  it('fills the mask minus its hole in blue at the proposal slot, outlines both rings and the box, and marks the points', () => {
    const fills: ShapeGeometry[] = [];
    const line = lineOut(), points = lineOut();
    proposalGeometry(
      {
        // a 100 x 100 square with a 20 x 20 hole, then a 10 x 10 square
        coords: [0, 0, 100, 0, 100, 100, 0, 100, 40, 40, 60, 40, 60, 60, 40, 60, 200, 200, 210, 200, 210, 210, 200, 210],
        ringLens: [4, 4, 4],
        polyRings: [2, 1],
        points: [50, 10, 1, 150, 150, 0],
        box: { x: -10, y: -10, width: 300, height: 300 },
      },
      (g) => fills.push(g),
      line,
      points,
    );
    expect(fills).toHaveLength(2);
    expect(fillArea(fills[0]!)).toBeCloseTo(10_000 - 400);
    expect(fillArea(fills[1]!)).toBeCloseTo(100);
    expect(fills[0]!.fill[2]).toBe(PROPOSAL_BLUE);
    expect(fills[0]!.fill[3]).toBe(-3);
    // 4 closed rings of 4 corners (two vertices each): square, hole, small square, box
    expect(line.v.length / LINE_STRIDE).toBe(4 * 4 * 2);
    // two markers of 4 vertices, green then red
    expect(points.v.length / LINE_STRIDE).toBe(8);
    expect(points.v[5]).toBe(POSITIVE_POINT);
    expect(points.v[4 * LINE_STRIDE + 5]).toBe(NEGATIVE_POINT);
  });

  it('draws nothing for an empty prompt', () => {
    const fills: ShapeGeometry[] = [];
    const line = lineOut(), points = lineOut();
    proposalGeometry({ coords: [], ringLens: [], polyRings: [], points: [], box: null }, (g) => fills.push(g), line, points);
    expect(fills).toHaveLength(0);
    expect(line.v).toHaveLength(0);
    expect(points.v).toHaveLength(0);
  });
});
