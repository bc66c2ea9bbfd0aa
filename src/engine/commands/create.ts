import { validateEditorAnnotation } from '../model/convert';
import type { EditorAnnotation, JsonValue } from '../model/types';
import { NO_ATTRIBUTES, defineCommand } from './types';

/** Adds a new annotation on top, with its class's default attributes (env.attributesFor). Rejects invalid geometry (min points, NaN, bad RLE). */
export const create = defineCommand<{ annotation: EditorAnnotation }>({
  name: 'create',
  label: ({ annotation }) => `Create ${annotation.type}`,
  run(tx, { annotation }, env) {
    const problem = validateEditorAnnotation(annotation);
    if (problem) throw new Error(`Invalid annotation: ${problem}`);
    const current = annotation.attributes ?? NO_ATTRIBUTES;
    const attributes = env.attributesFor?.(annotation.class, current) ?? current;
    tx.add(attributes !== current ? { ...annotation, attributes: structuredClone(attributes) as JsonValue[] } : annotation);
  },
});
