import type { VertexRef } from '../model/types';
import { defineCommand } from './types';
import { getRing, isPath, withRing } from './vertex';

/** Inserts a vertex so that it ends up at `ref.index` (e.g. index i+1 splits edge i -> i+1). */
export const insertVertex = defineCommand<{ ref: VertexRef; x: number; y: number }>({
  name: 'insert-vertex',
  label: () => 'Insert point',
  run(tx, { ref, x, y }) {
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error('Coordinates must be finite');
    const a = tx.get(ref.id);
    if (!isPath(a)) return;
    const ring = getRing(a, ref.ring);
    if (!ring || ref.index < 0 || ref.index > ring.length) return;
    const points = ring.slice();
    points.splice(ref.index, 0, [x, y]);
    tx.set(withRing(a, ref.ring, points));
  },
});
