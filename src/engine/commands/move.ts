import { translateAnnotation } from '../model/geometry';
import { countLabel, defineCommand } from './types';

export interface MovePayload {
  readonly ids: readonly string[];
  readonly dx: number;
  readonly dy: number;
  /**
   * Whole-pixel shift for masks. A drag passes round(total) - round(previous total) so masks
   * follow the pointer without rounding drift; defaults to round(dx), round(dy).
   */
  readonly maskDx?: number;
  readonly maskDy?: number;
}

/** Translates annotations; touches only the moved ones. */
export const move = defineCommand<MovePayload>({
  name: 'move',
  label: ({ ids }) => countLabel('Move', ids.length),
  run(tx, { ids, dx, dy, maskDx, maskDy }) {
    if (!Number.isFinite(dx) || !Number.isFinite(dy)) throw new Error('Move offsets must be finite');
    for (const id of ids) {
      const a = tx.get(id);
      if (!a) continue;
      const moved = translateAnnotation(a, dx, dy, maskDx, maskDy);
      if (moved !== a) tx.set(moved);
    }
  },
});
