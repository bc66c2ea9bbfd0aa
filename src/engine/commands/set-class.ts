import type { JsonValue } from '../model/types';
import { NO_ATTRIBUTES, defineCommand } from './types';

// A class change also conforms the attributes to the new class (env.attributesFor): values that
// fit are kept, the new class's defaults fill in, so the shape saves under its new class.

export const setClass = defineCommand<{ ids: readonly string[]; class: string }>({
  name: 'set-class',
  label: ({ ids }) => (ids.length === 1 ? 'Set class' : `Set class of ${ids.length} annotation(s)`),
  run(tx, { ids, class: cls }, env) {
    for (const id of ids) {
      const a = tx.get(id);
      if (!a || a.class === cls) continue;
      const current = a.attributes ?? NO_ATTRIBUTES;
      const attributes = env.attributesFor?.(cls, current) ?? current;
      tx.set(attributes !== current ? { ...a, class: cls, attributes: structuredClone(attributes) as JsonValue[] } : { ...a, class: cls });
    }
  },
});
