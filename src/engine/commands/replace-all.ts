import type { EditorAnnotation } from '../model/types';
import { defineCommand } from './types';

/** Replaces the whole document (e.g. 'Copy Previous'); `annotations` are in paint order. */
export const replaceAll = defineCommand<{ annotations: readonly EditorAnnotation[] }>({
  name: 'replace-all',
  label: () => 'Replace all annotations',
  run(tx, { annotations }) {
    tx.replaceAll(annotations);
  },
});
