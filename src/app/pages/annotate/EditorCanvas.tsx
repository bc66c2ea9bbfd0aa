// The drawing surface: a <canvas> the renderer draws on (in a worker when it can), with pointer,
// wheel and size events forwarded to the engine in canvas CSS pixels.
import { useEffect, useRef, type PointerEvent as ReactPointerEvent } from 'react';
import { screenToImage, type Editor } from '../../../engine';
import { createRenderer, plugMaskKernels, type ImageSourceInput, type RendererHandle } from '../../../workers/render-client';
import { renderDisplay, useViewSettings } from '../../stores/viewSettings';
import styles from './AnnotatePage.module.css';
import { BrushCursor } from './BrushCursor';
import { SkeletonCursor } from './SkeletonCursor';
import { SelectionMaskMenu } from './MaskMenu';
import { useCanvasBarRoom } from './useCanvasBarRoom';
import { KeyCursor, useCanvasKeyFocus } from './KeyCursor';
import { BoxGuides } from './BoxGuides';

export interface EditorCanvasProps {
  editor: Editor;
  classColor: (name: string) => string;
  /** Changes when the classes' colours change, so the scene is recoloured. */
  colorsKey: string;
  imageSource: ImageSourceInput | undefined;
  /** Called once the image is open (or failed to open). */
  onImageReady?(error: Error | null): void;
  cursor: string;
  label: string;
  /** The pointer moved over the canvas, in image pixels (live co-editing sends it to the others). */
  onPointerImage?(x: number, y: number): void;
  /** data-testid of the canvas (a second canvas, the version preview's, has its own). */
  testId?: string;
}

// Long because it is the canvas's whole wiring: the renderer's life, its size, the settings it
// draws with, and every pointer, focus and wheel event handed to the engine, with its overlays.
export function EditorCanvas({ editor, classColor, colorsKey, imageSource, onImageReady, cursor, label, onPointerImage, testId = 'editor-canvas' }: EditorCanvasProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const keyFocus = useCanvasKeyFocus(editor);
  const rendererRef = useRef<RendererHandle | null>(null);
  const colorRef = useRef(classColor);
  colorRef.current = classColor;
  const readyRef = useRef(onImageReady);
  readyRef.current = onImageReady;
  // The annotator's display settings (labels, outline width, image adjustments).
  const labels = useViewSettings((s) => s.labels);
  const outlineWidth = useViewSettings((s) => s.outlineWidth);
  const adjustments = useViewSettings((s) => s.adjustments);
  useCanvasBarRoom(editor);

  // One renderer for the life of the screen; images and documents change under it.
  useEffect(() => {
    const canvas = canvasRef.current!;
    const renderer = createRenderer({ canvas, editor, imageSource: null, classColor: (n) => colorRef.current(n) });
    rendererRef.current = renderer;
    const box = canvas.parentElement!;
    const size = () => editor.setViewport({ width: box.clientWidth, height: box.clientHeight });
    size();
    const ro = new ResizeObserver(size);
    ro.observe(box);
    // Wheel must be non-passive to keep the page from scrolling while zooming.
    // Deltas in lines (Firefox's mouse wheel: 3 a notch) or pages become CSS pixels, as Chromium sends.
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const unit = e.deltaMode === WheelEvent.DOM_DELTA_LINE ? 100 / 3 : e.deltaMode === WheelEvent.DOM_DELTA_PAGE ? box.clientHeight : 1;
      if (e.ctrlKey || Math.abs(e.deltaY) >= Math.abs(e.deltaX)) editor.wheel({ x: e.offsetX, y: e.offsetY, deltaY: e.deltaY * unit });
      else editor.panBy(-e.deltaX * unit, 0);
    };
    canvas.addEventListener('wheel', onWheel, { passive: false });
    return () => {
      canvas.removeEventListener('wheel', onWheel);
      ro.disconnect();
      renderer.dispose();
      rendererRef.current = null;
    };
  }, [editor]);

  // The brush, the eraser and the mask commands paint with the wasm kernels on this thread.
  useEffect(() => plugMaskKernels(editor), [editor]);

  useEffect(() => {
    rendererRef.current?.setDisplay(renderDisplay({ labels, outlineWidth, adjustments }));
  }, [editor, labels, outlineWidth, adjustments]);

  useEffect(() => {
    rendererRef.current?.refreshColors();
  }, [colorsKey]);

  useEffect(() => {
    if (imageSource === undefined) return;
    const renderer = rendererRef.current;
    if (!renderer) return;
    let live = true;
    renderer.setImage(imageSource).then(
      () => live && readyRef.current?.(null),
      (err: unknown) => live && readyRef.current?.(err instanceof Error ? err : new Error(String(err))),
    );
    return () => {
      live = false;
    };
  }, [imageSource]);

  const point = (e: ReactPointerEvent<HTMLCanvasElement>) => ({
    x: e.nativeEvent.offsetX,
    y: e.nativeEvent.offsetY,
    button: e.button,
    shiftKey: e.shiftKey,
    altKey: e.altKey,
    ctrlKey: e.ctrlKey,
    metaKey: e.metaKey,
  });

  return (
    <div className={styles.canvasBox}>
      <canvas
        ref={canvasRef}
        className={styles.canvas}
        style={{ cursor }}
        tabIndex={0}
        aria-label={label}
        data-testid={testId}
        onFocus={keyFocus.onFocus}
        onBlur={keyFocus.onBlur}
        onPointerDown={(e) => {
          keyFocus.onPress();
          e.currentTarget.focus({ preventScroll: true });
          e.currentTarget.setPointerCapture(e.pointerId);
          editor.pointerDown(point(e));
        }}
        onPointerMove={(e) => {
          editor.pointerMove(point(e));
          if (onPointerImage) {
            const [x, y] = screenToImage(editor.getCamera(), e.nativeEvent.offsetX, e.nativeEvent.offsetY);
            onPointerImage(x, y);
          }
        }}
        onPointerUp={(e) => {
          if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
          editor.pointerUp(point(e));
        }}
        onPointerCancel={(e) => editor.pointerUp(point(e))}
        onPointerLeave={() => editor.pointerLeave()}
        onDoubleClick={(e) => editor.doubleClick({ x: e.nativeEvent.offsetX, y: e.nativeEvent.offsetY, button: 0 })}
        onContextMenu={(e) => e.preventDefault()}
      />
      <BoxGuides editor={editor} canvas={canvasRef} />
      <BrushCursor editor={editor} canvas={canvasRef} />
      <SkeletonCursor editor={editor} canvas={canvasRef} />
      <SelectionMaskMenu editor={editor} canvas={canvasRef} />
      <KeyCursor editor={editor} />
    </div>
  );
}
