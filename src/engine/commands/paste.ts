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

export const PASTE_OFFSET = 20;

/** The editor's copy (Editor.copy): repeated pastes of the same copy cascade by PASTE_OFFSET (20, 40, ...). */
export class Clipboard {
  private shapes: EditorAnnotation[] = [];
  private pastes = 0;

  /** Keeps copies of `shapes` (an empty copy keeps the last one); returns other copies for the caller. */
  keep(shapes: readonly EditorAnnotation[]): EditorAnnotation[] {
    const copies = shapes.map((a) => structuredClone(a) as EditorAnnotation);
    if (copies.length > 0) {
      this.shapes = copies;
      this.pastes = 0;
    }
    return structuredClone(copies);
  }

  /** The paste command's payload: `shapes` at `offset` (default PASTE_OFFSET), or the copy kept at its next cascade step. */
  next(shapes?: readonly EditorAnnotation[], offset?: number): { annotations: readonly EditorAnnotation[]; offset: number } {
    if (shapes) return { annotations: shapes, offset: offset ?? PASTE_OFFSET };
    this.pastes++;
    return { annotations: this.shapes, offset: offset ?? PASTE_OFFSET * this.pastes };
  }
}
