import { defineCommand } from './types';

export const removeAll = defineCommand<Record<string, never>>({
  name: 'remove-all',
  label: (_p, doc) => `Remove all ${doc.count} annotation(s)`,
  run(tx) {
    tx.replaceAll([]);
  },
});
