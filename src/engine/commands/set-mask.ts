import { rleBBox } from '../model/rle';
import type { Rle } from '../model/types';
import { defineCommand } from './types';

// A mask's new pixels (a brush stroke, Fill holes, Remove islands), its bounding box derived from
// the runs. The RLE comes from the wasm kernels, valid by construction; only its size is checked
// here (a full validation per pointer move would cost more than the stroke itself).

export const setMask = defineCommand<{ id: string; rle: Rle; label?: string }>({
  name: 'set-mask',
  label: ({ label }) => label ?? 'Edit mask',
  run(tx, { id, rle }) {
    const a = tx.get(id);
    if (!a || a.type !== 'segmentation') throw new Error(`No mask ${id}`);
    if (rle.size[0] !== a.rle.size[0] || rle.size[1] !== a.rle.size[1]) throw new Error(`Mask ${id} is ${a.rle.size.join(' x ')}, not ${rle.size.join(' x ')}`);
    const box = rleBBox(rle);
    tx.set({ ...a, rle, x: box.x, y: box.y, width: box.width, height: box.height });
  },
});
