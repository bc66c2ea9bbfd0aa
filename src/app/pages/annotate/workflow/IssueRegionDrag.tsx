// Dragging out a region for a new issue (Shift+I, or the issues panel's region button): a layer
// over the canvas takes the pointer until the drag ends; a click without a drag pins a point.
// Esc or a right click cancels. The region goes to the issue form in image pixels.
import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import type { Region } from '../../../../contract/workflow';
import type { Editor } from '../../../../engine';
import styles from './Workflow.module.css';

/** Drags shorter than this (screen px) are a click: a point. */
const CLICK_PX = 4;

export function IssueRegionDrag({ editor, onDone, onCancel }: { editor: Editor; onDone(region: Region): void; onCancel(): void }) {
  const [rect, setRect] = useState<{ x0: number; y0: number; x1: number; y1: number } | null>(null);
  const start = useRef<{ x: number; y: number } | null>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onCancel]);
  const at = (e: ReactPointerEvent<HTMLDivElement>) => ({ x: e.nativeEvent.offsetX, y: e.nativeEvent.offsetY });
  return (
    <div
      className={styles.dragLayer}
      role="application"
      aria-label="Drag a region for the new issue, or click to pin a point. Esc cancels."
      data-testid="issue-region-layer"
      onContextMenu={(e) => {
        e.preventDefault();
        onCancel();
      }}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        e.currentTarget.setPointerCapture(e.pointerId);
        start.current = at(e);
        setRect({ x0: start.current.x, y0: start.current.y, x1: start.current.x, y1: start.current.y });
      }}
      onPointerMove={(e) => {
        if (start.current) setRect({ x0: start.current.x, y0: start.current.y, ...{ x1: at(e).x, y1: at(e).y } });
      }}
      onPointerUp={(e) => {
        const s = start.current;
        start.current = null;
        if (!s) return;
        const end = at(e);
        const [ax, ay] = editor.screenToImage(Math.min(s.x, end.x), Math.min(s.y, end.y));
        const [bx, by] = editor.screenToImage(Math.max(s.x, end.x), Math.max(s.y, end.y));
        const dragged = Math.abs(end.x - s.x) >= CLICK_PX && Math.abs(end.y - s.y) >= CLICK_PX;
        onDone(dragged ? { x: ax, y: ay, w: bx - ax, h: by - ay } : { x: ax, y: ay });
      }}
    >
      <p className={styles.dragHint}>Drag a region for the new issue, or click to pin a point · Esc cancels</p>
      {rect ? (
        <div
          className={styles.dragRect}
          style={{ left: Math.min(rect.x0, rect.x1), top: Math.min(rect.y0, rect.y1), width: Math.abs(rect.x1 - rect.x0), height: Math.abs(rect.y1 - rect.y0) }}
        />
      ) : null}
    </div>
  );
}
