// Building a document in slices: opening a 100k-shape image must never block the main thread
// for long, so the work yields to the event loop every `budgetMs` and can be abandoned there.
import { DocBuilder, type DocState } from './model/document';
import { duplicateIdError, parseStoredAnnotationAt } from './model/convert';
import type { EditorAnnotation, EditorDocumentJSON } from './model/types';
import { nextTask } from './tasks';

/** How loadAsync / loadStoredAsync spread their work. */
export interface LoadOptions {
  /** Main-thread time per task before yielding to the event loop (default 8 ms). */
  budgetMs?: number;
  /** After each slice and at the end: annotations done of the total (for a progress bar). */
  onProgress?: (done: number, total: number) => void;
  /**
   * The document's key (an image id): the undo history of the document it replaces is shelved
   * under that one's key, and this key's shelved history, if any, comes back (see HistoryShelf).
   */
  historyKey?: string;
}

/** A document built by buildInSlices, with its paint order ready to adopt. */
export interface BuiltDocument {
  readonly doc: DocState;
  readonly ids: string[];
  readonly zOf: Map<string, number>;
}

/**
 * Adds `item(i)` for i in [0, total) to a new document, checking the clock every `checkEvery`
 * items (reading it per item costs more than cheap items do). Between slices it reports progress
 * and yields; when `current()` then says a later load took over, it resolves to null.
 */
export async function buildInSlices(
  total: number,
  item: (i: number, building: DocBuilder) => EditorAnnotation,
  checkEvery: number,
  { budgetMs = 8, onProgress }: LoadOptions,
  current: () => boolean,
): Promise<BuiltDocument | null> {
  const builder = new DocBuilder();
  let t0 = performance.now();
  for (let i = 0; i < total; i++) {
    if (i % checkEvery === 0 && performance.now() - t0 > budgetMs) {
      onProgress?.(i, total);
      await nextTask();
      if (!current()) return null;
      t0 = performance.now();
    }
    builder.add(item(i, builder));
  }
  return builder.finish();
}

/** The annotations of a document given as JSON or as a plain list. */
export function annotationList(doc: EditorDocumentJSON | readonly EditorAnnotation[]): readonly EditorAnnotation[] {
  return Array.isArray(doc) ? (doc as readonly EditorAnnotation[]) : (doc as EditorDocumentJSON).annotations;
}

/** buildInSlices' items from stored JSON: each validated (zod) and converted as it is added. */
export function storedItems(list: readonly unknown[]): (i: number, building: DocBuilder) => EditorAnnotation {
  return (i, building) => {
    const a = parseStoredAnnotationAt(list[i], i);
    if (building.has(a.id)) throw duplicateIdError(a.id, i);
    return a;
  };
}
