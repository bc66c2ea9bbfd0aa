import { MIN_POLYGON_POINTS, MIN_POLYLINE_POINTS, type VertexRef } from '../model/types';
import { defineCommand } from './types';
import { getRing, isPath, withRing } from './vertex';

/**
 * Removes a vertex. The outer path keeps its minimum (3 for polygons, 2 for polylines): below
 * that nothing happens. A hole that would drop under 3 points is removed as a whole.
 * Returns whether anything changed.
 */
export const deleteVertex = defineCommand<{ ref: VertexRef }, boolean>({
  name: 'delete-vertex',
  label: () => 'Delete point',
  run(tx, { ref }) {
    const a = tx.get(ref.id);
    if (a?.type === 'skeleton') {
      // A skeleton keeps one point per name: a deleted point is no longer labelled (v 0).
      if (ref.ring !== 0 || !a.keypoints[ref.index] || a.keypoints[ref.index]!.v === 0) return false;
      const keypoints = a.keypoints.slice();
      keypoints[ref.index] = { x: 0, y: 0, v: 0 };
      tx.set({ ...a, keypoints });
      return true;
    }
    if (!isPath(a)) return false;
    const ring = getRing(a, ref.ring);
    if (!ring || ref.index < 0 || ref.index >= ring.length) return false;
    const min = a.type === 'polygon' ? MIN_POLYGON_POINTS : MIN_POLYLINE_POINTS;
    if (ring.length - 1 < min) {
      if (ref.ring === 0) return false;
      tx.set(withRing(a, ref.ring, null));
      return true;
    }
    const points = ring.slice();
    points.splice(ref.index, 1);
    tx.set(withRing(a, ref.ring, points));
    return true;
  },
});
