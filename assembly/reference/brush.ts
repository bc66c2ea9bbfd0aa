// Plain TypeScript reference for the mask edits of assembly/kernels/brush.ts, on a full
// column-major bitmap (pixel (x, y) at x * h + y) and by the definitions alone: a pixel is under
// the stroke when its centre's distance to the polyline is at most the radius; a hole is
// background not 4-connected to the image's outside; an island is an 8-connected foreground part.
type P = readonly [number, number];

function distToSegment2(px: number, py: number, a: P, b: P): number {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - a[0]) * dx + (py - a[1]) * dy) / len2));
  const qx = a[0] + t * dx - px, qy = a[1] + t * dy - py;
  return qx * qx + qy * qy;
}

/** A copy of `mask` with the stroke painted (1) or erased (0). */
export function paintStrokeRef(mask: Uint8Array, h: number, w: number, points: readonly P[], radius: number, erase: boolean): Uint8Array {
  const out = mask.slice();
  if (points.length === 0) return out;
  const segments = points.length === 1 ? [[points[0]!, points[0]!] as const] : points.slice(1).map((p, i) => [points[i]!, p] as const);
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      const hit = segments.some(([a, b]) => distToSegment2(x + 0.5, y + 0.5, a, b) <= radius * radius);
      if (hit) out[x * h + y] = erase ? 0 : 1;
    }
  }
  return out;
}

/** Labels the connected parts of pixels equal to `value`; returns the label of each pixel (-1 elsewhere) and each part's size. */
function parts(mask: Uint8Array, h: number, w: number, value: number, eight: boolean): { label: Int32Array; sizes: number[] } {
  const label = new Int32Array(h * w).fill(-1);
  const sizes: number[] = [];
  for (let start = 0; start < h * w; start++) {
    if (label[start] !== -1 || (mask[start] ? 1 : 0) !== value) continue;
    const id = sizes.length;
    const stack = [start];
    label[start] = id;
    let size = 0;
    while (stack.length) {
      const p = stack.pop()!;
      size++;
      const x = Math.floor(p / h), y = p % h;
      for (let dx = -1; dx <= 1; dx++) {
        for (let dy = -1; dy <= 1; dy++) {
          if ((dx === 0 && dy === 0) || (!eight && dx !== 0 && dy !== 0)) continue;
          const nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const q = nx * h + ny;
          if (label[q] === -1 && (mask[q] ? 1 : 0) === value) {
            label[q] = id;
            stack.push(q);
          }
        }
      }
    }
    sizes.push(size);
  }
  return { label, sizes };
}

export function fillHolesRef(mask: Uint8Array, h: number, w: number): Uint8Array {
  const { label } = parts(mask, h, w, 0, false);
  const outside = new Set<number>();
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) outside.add(label[x * h + y]!);
    }
  }
  return Uint8Array.from(mask, (v, i) => (v || !outside.has(label[i]!) ? 1 : 0));
}

export function removeIslandsRef(mask: Uint8Array, h: number, w: number, minArea: number): Uint8Array {
  const { label, sizes } = parts(mask, h, w, 1, true);
  return Uint8Array.from(mask, (v, i) => (v && sizes[label[i]!]! >= minArea ? 1 : 0));
}
