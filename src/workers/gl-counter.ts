// Benchmarks only: counts a WebGL context's draw calls and the bytes uploaded to the GPU (buffer
// and texture data), per frame. Installed on a context when a benchmark turns measuring on
// (Renderer.setMeasure); production frames never go through these wrappers.
import type { FrameCounts } from './protocol';

export interface GlCounts {
  draws: number;
  uploadBytes: number;
  /** Point primitives submitted (drawArrays of POINTS: the dots pass), culled or drawn. */
  points: number;
}

/** Per frame: the counts of protocol.ts' FrameCounts, and the points submitted (benchmarks read it when present). */
export type PointCounts = FrameCounts & { points: number[] };

type AnyFn = (...args: unknown[]) => unknown;

const byteLength = (x: unknown): number => (x && typeof x === 'object' && 'byteLength' in x ? Number((x as ArrayBufferView).byteLength) : 0);

/** Pixels of a DOM/bitmap source (texImage2D's 6-argument form), counted as RGBA. */
const sourceBytes = (x: unknown): number => {
  const s = x as { width?: number; height?: number } | null;
  return s && typeof s.width === 'number' && typeof s.height === 'number' ? s.width * s.height * 4 : 0;
};

/** Wraps `gl`'s draw and upload calls (own properties over the prototype's); returns the live counts. */
export function countGl(gl: WebGLRenderingContext): GlCounts {
  const counts: GlCounts = { draws: 0, uploadBytes: 0, points: 0 };
  const g = gl as unknown as Record<string, AnyFn>;
  const wrap = (target: Record<string, AnyFn>, name: string, onCall: (args: unknown[]) => void) => {
    const orig = target[name];
    if (typeof orig !== 'function') return;
    target[name] = function (this: unknown, ...args: unknown[]) {
      onCall(args);
      return orig.apply(this, args);
    };
  };
  const draw = () => counts.draws++;
  // drawArrays(mode, first, count)
  wrap(g, 'drawArrays', (a) => {
    counts.draws++;
    if (a[0] === gl.POINTS) counts.points += Number(a[2]);
  });
  wrap(g, 'drawElements', draw);
  wrap(g, 'bufferData', (a) => { counts.uploadBytes += byteLength(a[1]); });
  wrap(g, 'bufferSubData', (a) => { counts.uploadBytes += byteLength(a[2]); });
  // texImage2D(target, level, internal, w, h, border, format, type, pixels) or (target, level, internal, format, type, source)
  wrap(g, 'texImage2D', (a) => { counts.uploadBytes += a.length >= 9 ? byteLength(a[8]) : sourceBytes(a[5]); });
  // texSubImage2D(target, level, x, y, w, h, format, type, pixels) or (target, level, x, y, format, type, source)
  wrap(g, 'texSubImage2D', (a) => { counts.uploadBytes += a.length >= 9 ? byteLength(a[8]) : sourceBytes(a[6]); });
  const instanced = gl.getExtension('ANGLE_instanced_arrays') as unknown as Record<string, AnyFn> | null;
  if (instanced) {
    wrap(instanced, 'drawArraysInstancedANGLE', draw);
    wrap(instanced, 'drawElementsInstancedANGLE', draw);
  }
  return counts;
}

/** A renderer's per-frame counts so far (copied), emptied when `clear`. */
export function takeFrameCounts(r: { frameCounts: PointCounts }, clear: boolean): PointCounts {
  const out = { draws: r.frameCounts.draws.slice(), uploadBytes: r.frameCounts.uploadBytes.slice(), points: r.frameCounts.points.slice() };
  if (clear) r.frameCounts.draws.length = r.frameCounts.uploadBytes.length = r.frameCounts.points.length = 0;
  return out;
}
