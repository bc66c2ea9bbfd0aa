import { validateEditorAnnotation } from '../model/convert';
import { translateAnnotation } from '../model/geometry';
import type { EditorAnnotation, JsonValue } from '../model/types';
import { NO_ATTRIBUTES, countLabel, defineCommand } from './types';

/** Adds copies with fresh ids, shifted by `offset` image pixels; returns the new ids in order. */
export const paste = defineCommand<{ annotations: readonly EditorAnnotation[]; offset: number }, string[]>({
  name: 'paste',
  label: ({ annotations }) => countLabel('Paste', annotations.length),
  run(tx, { annotations, offset }, env) {
    const ids: string[] = [];
    for (const src of annotations) {
      const moved = { ...translateAnnotation(structuredClone(src) as EditorAnnotation, offset, offset), id: env.newId() };
      // Copied from another image or before a class's attributes changed: conformed to the class now.
      const current = moved.attributes ?? NO_ATTRIBUTES;
      const attributes = env.attributesFor?.(moved.class, current) ?? current;
      const copy: EditorAnnotation = attributes !== current ? { ...moved, attributes: structuredClone(attributes) as JsonValue[] } : moved;
      const problem = validateEditorAnnotation(copy);
      if (problem) throw new Error(`Invalid pasted annotation: ${problem}`);
      tx.add(copy);
      ids.push(copy.id);
    }
    return ids;
  },
});
