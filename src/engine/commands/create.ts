import { validateEditorAnnotation } from '../model/convert';
import type { EditorAnnotation } from '../model/types';
import { defineCommand } from './types';

/** Adds a new annotation on top. Rejects invalid geometry (min points, NaN, bad RLE). */
export const create = defineCommand<{ annotation: EditorAnnotation }>({
  name: 'create',
  label: ({ annotation }) => `Create ${annotation.type}`,
  run(tx, { annotation }) {
    const problem = validateEditorAnnotation(annotation);
    if (problem) throw new Error(`Invalid annotation: ${problem}`);
    tx.add(annotation);
  },
});
