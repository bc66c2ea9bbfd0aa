// Auto-Annotate's preview in the renderer's overlay: the proposed mask as a translucent fill in
// the Auto-Annotate blue (the accent, #3B5BDB) with a blue outline, the box prompt's outline, and
// the prompt's points as round dots (positive: success green, negative: danger red) with a white
// ring, as the SVG overlay drew them before.
import { polygonGeometry, pushMarker, pushRing, type LineOut, type ShapeGeometry } from './geometry';
import type { RenderProposal } from './protocol';

export const PROPOSAL_BLUE = 0x3b5bdb;
export const POSITIVE_POINT = 0x12b76a;
export const NEGATIVE_POINT = 0xd92d20;
/** Fill slot the fill shader draws at 40% (the old SVG's rgba(59, 91, 219, 0.4)). */
const PROPOSAL_SLOT = -3;
/** Point radius and its white ring, CSS px. */
export const PROMPT_POINT_R = 4.5;
export const PROMPT_POINT_HALO = [1, 1, 1, 1];

export function proposalGeometry(p: RenderProposal, addFill: (g: ShapeGeometry) => void, line: LineOut, points: LineOut): void {
  let ring = 0, at = 0;
  for (const n of p.polyRings) {
    const lens = p.ringLens.slice(ring, ring + n);
    const total = lens.reduce((a, b) => a + b, 0);
    const coords = p.coords.slice(at * 2, (at + total) * 2);
    addFill(polygonGeometry(coords, lens, PROPOSAL_BLUE, PROPOSAL_SLOT));
    let k = 0;
    for (const len of lens) {
      pushRing(line, coords, k, len, true, PROPOSAL_BLUE, -1);
      k += len;
    }
    ring += n;
    at += total;
  }
  const b = p.box;
  if (b) {
    const x1 = b.x + b.width, y1 = b.y + b.height;
    pushRing(line, [b.x, b.y, x1, b.y, x1, y1, b.x, y1], 0, 4, true, PROPOSAL_BLUE, -1);
  }
  for (let i = 0; i + 2 < p.points.length; i += 3) {
    pushMarker(points, p.points[i]!, p.points[i + 1]!, 3, p.points[i + 2] ? POSITIVE_POINT : NEGATIVE_POINT, -1);
  }
}
