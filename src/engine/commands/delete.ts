import { countLabel, defineCommand } from './types';

export const deleteAnnotations = defineCommand<{ ids: readonly string[] }>({
  name: 'delete',
  label: ({ ids }) => countLabel('Delete', ids.length),
  run(tx, { ids }) {
    for (const id of ids) tx.remove(id);
  },
});
