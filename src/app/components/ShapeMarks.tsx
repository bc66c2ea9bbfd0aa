// Stored shapes drawn as SVG in image pixels, for static views that need no editor: the Data tab's
// tiles (TileShapes) and the reviewer's merge view (issue 36 §3). The caller gives the <svg> with
// the image's viewBox; each shape is outlined in its colour (boxes and masks by their box, a mask
// dashed; polygons, polylines and keypoints as drawn; a skeleton by its box).
import type { StoredAnnotation } from '../../contract/annotations';

type Point = readonly [number, number];
const points = (path: readonly (readonly number[])[]) => path.map((p) => `${p[0]},${p[1]}`).join(' ');

/** One shape as SVG; `emphasis` draws it thicker and fuller (the merge view's chosen group). */
export function ShapeMark({ a, color, emphasis = false }: { a: StoredAnnotation; color: string; emphasis?: boolean }) {
  const common = { stroke: color, strokeWidth: emphasis ? 4 : 2, vectorEffect: 'non-scaling-stroke' as const };
  const b = a.bounding_box;
  if (a.polygon) return <polygon points={points(a.polygon.path as Point[])} fill={color} fillOpacity={emphasis ? 0.35 : 0.2} {...common} />;
  if (a.polyline) return <polyline points={points(a.polyline.path as Point[])} fill="none" {...common} />;
  if (a.keypoint) return <circle cx={a.keypoint.x} cy={a.keypoint.y} r={Math.max(2, Math.min(b.w, b.h) / 2 || 4)} fill={color} {...common} />;
  return <rect x={b.x} y={b.y} width={b.w} height={b.h} fill={color} fillOpacity={(a.segmentation ? 0.25 : 0.12) + (emphasis ? 0.15 : 0)} strokeDasharray={a.segmentation ? '4 3' : undefined} {...common} />;
}
