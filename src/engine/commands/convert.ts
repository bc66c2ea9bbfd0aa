import { validateEditorAnnotation } from '../model/convert';
import { getZ } from '../model/document';
import type { EditorAnnotation } from '../model/types';
import { defineCommand } from './types';

// Replaces one shape by others of another kind (a mask traced into polygons, a polygon made a
// mask). The new shapes take fresh ids, the first one the old shape's place in the paint order
// and the others go on top; they keep the class and attributes the caller gives them.

export const convert = defineCommand<{ id: string; into: readonly EditorAnnotation[]; label?: string }>({
  name: 'convert',
  label: ({ label }) => label ?? 'Convert',
  run(tx, { id, into }) {
    if (!tx.get(id)) throw new Error(`No annotation ${id}`);
    for (const a of into) {
      const problem = validateEditorAnnotation(a);
      if (problem) throw new Error(`Invalid annotation: ${problem}`);
    }
    const oldZ = getZ(tx.base, id);
    tx.remove(id);
    into.forEach((a, i) => tx.add(a, i === 0 ? oldZ : undefined));
  },
});
