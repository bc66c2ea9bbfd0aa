import { translateAnnotation } from '../model/geometry';
import type { EditorAnnotation } from '../model/types';
import { countLabel, defineCommand } from './types';

export interface MovePayload {
  readonly ids: readonly string[];
  readonly dx: number;
  readonly dy: number;
  /**
   * Where a drag started: when given, each shape becomes origin[id] moved by (dx, dy) (the
   * drag's total offset) instead of its current state moved again. So a drag never accumulates
   * float or pixel-rounding drift, and a mask dragged past the image border and back gets its
   * clipped pixels back.
   */
  readonly origin?: Readonly<Record<string, EditorAnnotation>>;
}

/** Translates annotations (masks by whole pixels); touches only the moved ones. */
export const move = defineCommand<MovePayload>({
  name: 'move',
  label: ({ ids }) => countLabel('Move', ids.length),
  run(tx, { ids, dx, dy, origin }) {
    if (!Number.isFinite(dx) || !Number.isFinite(dy)) throw new Error('Move offsets must be finite');
    for (const id of ids) {
      const current = tx.get(id);
      if (!current) continue;
      const from = origin?.[id] ?? current;
      const moved = translateAnnotation(from, dx, dy);
      if (moved !== current) tx.set(moved);
    }
  },
});
