// A DOM overlay over the canvas that follows the engine's view at the pointer (the brush's circle,
// the skeleton tool's next point name): redrawn in place on every view or camera change, and when
// the pointer leaves the canvas, with no React render per pointer move.
import { useEffect, useRef, type RefObject } from 'react';
import type { Editor } from '../../../engine';

/** While `shown`, calls `draw(over)` on view and camera changes and on pointer enter / leave; `over` is false once the pointer left the canvas. */
export function useOverlayAtPointer(editor: Editor, canvas: RefObject<HTMLCanvasElement | null>, shown: boolean, draw: (over: boolean) => void): void {
  const drawRef = useRef(draw);
  drawRef.current = draw;
  useEffect(() => {
    const el = canvas.current;
    if (!shown || !el) return;
    let over = true;
    const redraw = () => drawRef.current(over);
    const enter = () => {
      over = true;
    };
    const leave = () => {
      over = false;
      redraw();
    };
    el.addEventListener('pointerenter', enter);
    el.addEventListener('pointerleave', leave);
    const off = editor.subscribe((c) => {
      if (c.view || c.camera) redraw();
    });
    redraw();
    return () => {
      el.removeEventListener('pointerenter', enter);
      el.removeEventListener('pointerleave', leave);
      off();
    };
  }, [shown, editor, canvas]);
}
