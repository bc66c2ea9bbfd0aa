// The overlay's geometry, drawn over the shapes: handles of the selected shapes, the drawing
// preview, Auto-Annotate's proposal, the issues' pins and regions, the marquee.
import { boxGeometry, FILL_STRIDE, handleGeometry, LINE_STRIDE, lineOut, polygonGeometry, pushRing, type ShapeGeometry } from './geometry';
import type { Shape } from './cells';
import type { Buffer, Elements } from 'regl';
import { ISSUE_PIN_HALO, ISSUE_PIN_R, issueGeometry } from './issues';
import { PROMPT_POINT_HALO, PROMPT_POINT_R, proposalGeometry } from './proposal';
import { HALO, HANDLE_HALO } from './programs';
import type { RenderIssue, RenderView } from './protocol';

/** Selected shapes that get handles drawn, at most. */
const MAX_HANDLE_SHAPES = 2000;

/** Vertices and indices of the overlay's parts: [0] fill, [1] outlines, [2] handles, [3] Auto-Annotate's points, [4] issue pins. */
export function overlayParts(view: RenderView, shapes: ReadonlyMap<string, Shape>, hidden: ReadonlySet<string>, issues: readonly RenderIssue[]): [number[], number[]][] {
    const fill: number[] = [], fillIdx: number[] = [];
    const line = lineOut(), handles = lineOut();
    const addFill = (g: ShapeGeometry) => {
      const v = fill.length / FILL_STRIDE;
      for (const x of g.fill) fill.push(x);
      for (const i of g.fillIdx) fillIdx.push(i + v);
    };
    let n = 0;
    for (const id of view.selected) {
      if (n++ >= MAX_HANDLE_SHAPES) break;
      const s = shapes.get(id);
      if (!s || hidden.has(id)) continue;
      handleGeometry(s.geom.handles, 0xffffff, handles);
      if (s.mask) {
        const h = s.geom.handles;
        pushRing(line, h, 0, 4, true, s.color, -1);
      }
    }
    const d = view.drawing;
    if (d && d.points.length >= 2) {
      const count = d.points.length / 2;
      if (d.closed && count >= 3) addFill(polygonGeometry(d.points, [count], d.color, -2));
      if (count >= 2) pushRing(line, d.points, 0, count, d.closed, d.color, -1);
      handleGeometry(d.points, 0xffffff, handles);
    }
    const points = lineOut(), pins = lineOut();
    if (view.proposal) proposalGeometry(view.proposal, addFill, line, points);
    if (issues.length) issueGeometry(issues, line, pins);
    const m = view.marquee;
    if (m) {
      const g = boxGeometry(m.x, m.y, m.width, m.height, 0x3b5bdb, -2);
      addFill(g);
      const v = line.v.length / LINE_STRIDE;
      for (const x of g.line) line.v.push(x);
      for (const i of g.lineIdx) line.i.push(i + v);
    }
  return [[fill, fillIdx], [line.v, line.i], [handles.v, handles.i], [points.v, points.i], [pins.v, pins.i]];
}

/** An overlay part's GPU buffers and what of them is drawn. */
export type ChunkOverlay = { buf: Buffer; idx: Elements; offset: number; count: number };
export type LineDraw = ChunkOverlay & { marker: number; halo: number[]; haloW?: number; round?: boolean };

/** The line draws of the overlay's parts that have geometry (outlines, handles, Auto-Annotate's points, issue pins), into `out`. */
export function overlayLineDraws(overlay: ChunkOverlay[], out: LineDraw[]): void {
  const [, oLine, oHandles, oPoints, oPins] = overlay as [ChunkOverlay, ChunkOverlay, ChunkOverlay, ChunkOverlay, ChunkOverlay];
  if (oLine.count) out.push({ ...oLine, marker: 3, halo: HALO });
  if (oHandles.count) out.push({ ...oHandles, marker: 3, halo: HANDLE_HALO });
  if (oPoints.count) out.push({ ...oPoints, marker: PROMPT_POINT_R, halo: PROMPT_POINT_HALO, haloW: 2, round: true });
  if (oPins.count) out.push({ ...oPins, marker: ISSUE_PIN_R, halo: ISSUE_PIN_HALO, haloW: 2, round: true });
}
