import type { SkeletonPoint } from '../model/types';
import { defineCommand } from './types';

// One point of a skeleton instance: placed (v 2), placed occluded (v 1), or not labelled (v 0,
// then at 0,0 as the stored format has it). The skeleton tool places its points with it, the
// select tool drags one (move-vertex), Delete on a picked point unlabels it (delete-vertex).

export const setSkeletonPoint = defineCommand<{ id: string; index: number; point: SkeletonPoint }>({
  name: 'set-skeleton-point',
  label: () => 'Set skeleton point',
  run(tx, { id, index, point }) {
    const a = tx.get(id);
    if (!a || a.type !== 'skeleton') throw new Error(`No skeleton ${id}`);
    if (index < 0 || index >= a.keypoints.length) throw new Error(`Skeleton ${id} has no point ${index}`);
    if (!Number.isFinite(point.x) || !Number.isFinite(point.y)) throw new Error('Coordinates must be finite');
    const keypoints = a.keypoints.slice();
    keypoints[index] = point.v === 0 ? { x: 0, y: 0, v: 0 } : { x: point.x, y: point.y, v: point.v };
    tx.set({ ...a, keypoints });
  },
});
