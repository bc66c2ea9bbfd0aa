// The box tool's crosshair guides (issue 33): a horizontal and a vertical line through the pointer,
// each across the whole image, while the box tool is on and the pointer is over the image (also
// while a box is dragged). Two DOM lines over the canvas, moved in place on pointer and camera
// changes (no React render per move); switched off in the settings panel (viewSettings.crosshair).
import { useEffect, useRef, type RefObject } from 'react';
import { imageToScreen, screenToImage, type Editor } from '../../../engine';
import { useViewSettings } from '../../stores/viewSettings';
import { useEditorView } from './useEditor';
import styles from './BoxGuides.module.css';

export function BoxGuides({ editor, canvas }: { editor: Editor; canvas: RefObject<HTMLCanvasElement | null> }) {
  const on = useViewSettings((s) => s.crosshair);
  const tool = useEditorView(editor).tool;
  const shown = on && tool === 'box';
  const hRef = useRef<HTMLDivElement>(null);
  const vRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = canvas.current;
    if (!shown || !el) return;
    let pointer: [number, number] | null = null;
    const draw = () => {
      const h = hRef.current, v = vRef.current, image = editor.getImageSize();
      if (!h || !v) return;
      const camera = editor.getCamera();
      const [ix, iy] = pointer ? screenToImage(camera, pointer[0], pointer[1]) : [-1, -1];
      const over = pointer && image && ix >= 0 && iy >= 0 && ix <= image.width && iy <= image.height;
      h.style.display = v.style.display = over ? 'block' : 'none';
      if (!over || !pointer || !image) return;
      const [x0, y0] = imageToScreen(camera, 0, 0);
      const [x1, y1] = imageToScreen(camera, image.width, image.height);
      Object.assign(h.style, { left: `${x0}px`, width: `${x1 - x0}px`, top: `${pointer[1]}px` });
      Object.assign(v.style, { top: `${y0}px`, height: `${y1 - y0}px`, left: `${pointer[0]}px` });
    };
    const move = (e: PointerEvent) => {
      pointer = [e.offsetX, e.offsetY];
      draw();
    };
    const leave = () => {
      pointer = null;
      draw();
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerleave', leave);
    const off = editor.subscribe((c) => {
      if (c.camera) draw();
    });
    return () => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerleave', leave);
      off();
    };
  }, [shown, editor, canvas]);

  if (!shown) return null;
  return (
    <div className={styles.layer} aria-hidden="true" data-testid="box-guides">
      <div ref={hRef} className={styles.h} data-testid="box-guide-h" />
      <div ref={vRef} className={styles.v} data-testid="box-guide-v" />
    </div>
  );
}
