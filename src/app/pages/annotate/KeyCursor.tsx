// The keyboard's drawing cursor (issue 37): while the engine shows one (view.keyCursor, drawing
// by keyboard on the focused canvas), a crosshair across the image through it with a ring at its
// point, and a polite live region that says where it is ("Cursor at 120, 84") and what is being
// drawn. React renders only when the view or the camera changes (one key press each).
import { useMemo, useRef } from 'react';
import { imageToScreen, type Editor } from '../../../engine';
import { useCamera, useEditorView } from './useEditor';
import styles from './KeyCursor.module.css';

const DRAWING_TOOLS: ReadonlySet<string> = new Set(['box', 'polygon', 'polyline', 'keypoint', 'skeleton']);

/** What the live region says: the cursor's place in image pixels and the shape in progress. */
export function keyCursorText(at: readonly [number, number], drawing: { kind: string; points?: readonly unknown[] } | null): string {
  const where = `Cursor at ${Math.round(at[0])}, ${Math.round(at[1])}`;
  if (!drawing) return where;
  if (drawing.kind === 'box') return `${where}. Box started: place the opposite corner`;
  if (drawing.points) return `${where}. ${drawing.points.length} point${drawing.points.length === 1 ? '' : 's'} placed`;
  return where;
}

/**
 * The canvas's focus handlers: drawing by keyboard is on while the canvas has focus from the
 * keyboard (Tab); the focus a press gives leaves Enter to the app (the selection's attributes).
 */
export function useCanvasKeyFocus(editor: Editor): { onFocus(): void; onBlur(): void; onPress(): void } {
  const pressed = useRef(false);
  return useMemo(
    () => ({
      onFocus: () => editor.setCanvasFocused(!pressed.current),
      onBlur: () => {
        pressed.current = false;
        editor.setCanvasFocused(false);
      },
      onPress: () => {
        pressed.current = true;
        editor.setCanvasFocused(false);
      },
    }),
    [editor],
  );
}

export function KeyCursor({ editor }: { editor: Editor }) {
  const view = useEditorView(editor);
  const camera = useCamera(editor);
  const at = view.keyCursor ?? null;
  const image = editor.getImageSize();
  // The engine hides the cursor at the next key when the tool no longer draws; the crosshair goes at once.
  if (!at || !image || !DRAWING_TOOLS.has(view.tool)) return null;
  const [sx, sy] = imageToScreen(camera, at[0], at[1]);
  const [x0, y0] = imageToScreen(camera, 0, 0);
  const [x1, y1] = imageToScreen(camera, image.width, image.height);
  const drawing = view.drawing as { kind: string; points?: readonly unknown[] } | null;
  return (
    <>
      <div className={styles.layer} aria-hidden="true" data-testid="key-cursor">
        <div className={styles.h} style={{ left: x0, width: x1 - x0, top: sy }} />
        <div className={styles.v} style={{ top: y0, height: y1 - y0, left: sx }} />
        <div className={styles.ring} style={{ left: sx, top: sy }} />
      </div>
      <div className={styles.live} role="status" aria-live="polite" data-testid="key-cursor-status">
        {keyCursorText(at, drawing)}
      </div>
    </>
  );
}
