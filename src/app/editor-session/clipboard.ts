// Copy and paste across images (spec sections 2 and 9): the copied shapes live in browser
// storage, so they survive moving to the next image, a reload, or another tab. Each paste of the
// same copy lands 20 px further (20, 40, ...) so pasted shapes never hide each other.
import { PASTE_OFFSET, type EditorAnnotation } from '../../engine';

export const CLIPBOARD_KEY = 'vellum.editorClipboard';

interface Stored {
  shapes: EditorAnnotation[];
  /** Image the shapes were copied from; pasting on another image starts at one offset step. */
  imageId: string;
  pastes: Record<string, number>;
}

function read(storage: Storage): Stored | null {
  try {
    const raw = storage.getItem(CLIPBOARD_KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as Stored;
    return Array.isArray(v?.shapes) ? { ...v, pastes: v.pastes ?? {} } : null;
  } catch {
    return null;
  }
}

function write(storage: Storage, value: Stored): boolean {
  try {
    storage.setItem(CLIPBOARD_KEY, JSON.stringify(value));
    return true;
  } catch {
    return false; // quota: the in-memory copy still works for this image
  }
}

export function copyShapes(shapes: EditorAnnotation[], imageId: string, storage: Storage = window.localStorage): boolean {
  if (shapes.length === 0) return false;
  return write(storage, { shapes, imageId, pastes: {} });
}

/** The shapes to paste on `imageId` and their offset; null when nothing was copied. */
export function takePaste(imageId: string, storage: Storage = window.localStorage): { shapes: EditorAnnotation[]; offset: number } | null {
  const v = read(storage);
  if (!v || v.shapes.length === 0) return null;
  const n = (v.pastes[imageId] ?? 0) + 1;
  write(storage, { ...v, pastes: { ...v.pastes, [imageId]: n } });
  return { shapes: v.shapes, offset: PASTE_OFFSET * n };
}

export function hasClipboard(storage: Storage = window.localStorage): boolean {
  return (read(storage)?.shapes.length ?? 0) > 0;
}
