import { defineCommand } from './types';

export const setClass = defineCommand<{ ids: readonly string[]; class: string }>({
  name: 'set-class',
  label: ({ ids }) => (ids.length === 1 ? 'Set class' : `Set class of ${ids.length} annotation(s)`),
  run(tx, { ids, class: cls }) {
    for (const id of ids) {
      const a = tx.get(id);
      if (a && a.class !== cls) tx.set({ ...a, class: cls });
    }
  },
});
