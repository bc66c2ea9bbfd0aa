import type { VertexRef } from '../model/types';
import { defineCommand } from './types';
import { getRing, isPath, withRing } from './vertex';

/** Puts one vertex at an absolute position (absolute, so a drag never drifts). */
export const moveVertex = defineCommand<{ ref: VertexRef; x: number; y: number }>({
  name: 'move-vertex',
  label: () => 'Move point',
  run(tx, { ref, x, y }) {
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error('Coordinates must be finite');
    const a = tx.get(ref.id);
    if (a?.type === 'skeleton') {
      // A skeleton's labelled point moves alone, keeping its v.
      const p = a.keypoints[ref.index];
      if (ref.ring !== 0 || !p || p.v === 0) return;
      const keypoints = a.keypoints.slice();
      keypoints[ref.index] = { x, y, v: p.v };
      tx.set({ ...a, keypoints });
      return;
    }
    if (!isPath(a)) return;
    const ring = getRing(a, ref.ring);
    if (!ring || ref.index < 0 || ref.index >= ring.length) return;
    const points = ring.slice();
    points[ref.index] = [x, y];
    tx.set(withRing(a, ref.ring, points));
  },
});
