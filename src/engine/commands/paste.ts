import { validateEditorAnnotation } from '../model/convert';
import { translateAnnotation } from '../model/geometry';
import type { EditorAnnotation } from '../model/types';
import { countLabel, defineCommand } from './types';

/** Adds copies with fresh ids, shifted by `offset` image pixels; returns the new ids in order. */
export const paste = defineCommand<{ annotations: readonly EditorAnnotation[]; offset: number }, string[]>({
  name: 'paste',
  label: ({ annotations }) => countLabel('Paste', annotations.length),
  run(tx, { annotations, offset }, env) {
    const ids: string[] = [];
    for (const src of annotations) {
      const copy = { ...translateAnnotation(structuredClone(src) as EditorAnnotation, offset, offset), id: env.newId() };
      const problem = validateEditorAnnotation(copy);
      if (problem) throw new Error(`Invalid pasted annotation: ${problem}`);
      tx.add(copy);
      ids.push(copy.id);
    }
    return ids;
  },
});
