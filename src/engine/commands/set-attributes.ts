import type { JsonValue } from '../model/types';
import { defineCommand } from './types';

export const setAttributes = defineCommand<{ ids: readonly string[]; attributes: readonly JsonValue[] }>({
  name: 'set-attributes',
  label: () => 'Set attributes',
  run(tx, { ids, attributes }) {
    for (const id of ids) {
      const a = tx.get(id);
      // Each annotation gets its own copy, so later edits of one never alias another.
      if (a) tx.set({ ...a, attributes: structuredClone(attributes) as JsonValue[] });
    }
  },
});
