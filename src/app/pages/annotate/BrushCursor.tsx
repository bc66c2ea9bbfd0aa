// The brush's and the eraser's circle at the pointer (issue 33): the size the stroke paints, in
// screen pixels, so it shows what a stroke will cover at any zoom (dashed for the eraser). One DOM
// circle over the canvas, moved in place from the engine's view (view.drawing, kind 'brush', which
// the tool updates on every pointer move and on [ and ]); hidden when the pointer leaves.
import { useRef, type RefObject } from 'react';
import { imageToScreen, type Editor } from '../../../engine';
import { useEditorView } from './useEditor';
import { useOverlayAtPointer } from './useOverlayAtPointer';
import styles from './BrushCursor.module.css';

export function BrushCursor({ editor, canvas }: { editor: Editor; canvas: RefObject<HTMLCanvasElement | null> }) {
  const tool = useEditorView(editor).tool;
  const shown = tool === 'brush' || tool === 'eraser';
  const ref = useRef<HTMLDivElement>(null);

  useOverlayAtPointer(editor, canvas, shown, (over) => {
    const c = ref.current, d = editor.getView().drawing;
    if (!c) return;
    if (!over || d?.kind !== 'brush' || !d.cursor) {
      c.style.display = 'none';
      return;
    }
    const [x, y] = imageToScreen(editor.getCamera(), d.cursor[0], d.cursor[1]);
    Object.assign(c.style, { display: 'block', left: `${x}px`, top: `${y}px`, width: `${d.size}px`, height: `${d.size}px` });
    if (d.erase) c.dataset.erase = '';
    else delete c.dataset.erase;
  });

  if (!shown) return null;
  return (
    <div className={styles.layer} aria-hidden="true">
      <div ref={ref} className={styles.circle} data-testid="brush-cursor" />
    </div>
  );
}
