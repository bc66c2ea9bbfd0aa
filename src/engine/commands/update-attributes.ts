import type { JsonValue } from '../model/types';
import { countLabel, defineCommand } from './types';

const isEntry = (e: JsonValue, name: string) => typeof e === 'object' && e !== null && !Array.isArray(e) && e.name === name;

/**
 * Sets named attribute values ({name, value} entries) on each annotation, keeping its other
 * entries (issue 19: the Attributes panel; one undo entry for a whole multi-selection). An entry
 * of that name is replaced in place; a missing one is added at the end.
 */
export const updateAttributes = defineCommand<{ ids: readonly string[]; values: Readonly<Record<string, JsonValue>> }>({
  name: 'update-attributes',
  label: ({ ids, values }) => {
    const names = Object.keys(values);
    const what = names.length === 1 ? `Set ${names[0]}` : 'Set attributes';
    return ids.length === 1 ? what : `${what} of ${countLabel('', ids.length).trim()}`;
  },
  run(tx, { ids, values }) {
    const names = Object.keys(values);
    for (const id of ids) {
      const a = tx.get(id);
      if (!a) continue;
      const list = [...(a.attributes ?? [])];
      let changed = false;
      for (const name of names) {
        const value = structuredClone(values[name]!);
        const i = list.findIndex((e) => isEntry(e, name));
        const current = i >= 0 ? (list[i] as { value?: JsonValue }).value : undefined;
        if (i >= 0 && JSON.stringify(current) === JSON.stringify(value) && Object.keys(list[i] as object).length === 2) continue;
        if (i >= 0) list[i] = { name, value };
        else list.push({ name, value });
        changed = true;
      }
      if (changed) tx.set({ ...a, attributes: list });
    }
  },
});
