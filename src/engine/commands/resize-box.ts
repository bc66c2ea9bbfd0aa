import type { Rect } from '../model/types';
import { defineCommand } from './types';

/** Sets a box's rectangle (absolute, so a handle drag never drifts). */
export const resizeBox = defineCommand<{ id: string; rect: Rect }>({
  name: 'resize-box',
  label: () => 'Resize box',
  run(tx, { id, rect }) {
    const a = tx.get(id);
    if (!a || a.type !== 'box') return;
    const { x, y, width, height } = rect;
    if (![x, y, width, height].every(Number.isFinite) || width < 0 || height < 0) throw new Error('Invalid rectangle');
    tx.set({ ...a, x, y, width, height });
  },
});
