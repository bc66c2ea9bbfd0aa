// The Auto-Annotate status bar and the live mask (spec section 2: states, point count, mask area,
// Complete and Clear, the 'Return to Complete' hint; masks drawn in blue fill).
import { Eraser, Check, WandSparkles } from 'lucide-react';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { Editor } from '../../../engine';
import { Button } from '../../components/Button';
import { Spinner } from '../../components/Spinner';
import { statusText, type AutoAnnotateSession, type AutoState } from './autoAnnotate';
import { useCamera } from './useEditor';
import styles from './AnnotatePage.module.css';

export function useAutoState(session: AutoAnnotateSession): AutoState {
  return useSyncExternalStore(
    (cb) => session.subscribe(cb),
    () => session.getState(),
  );
}

export function AutoAnnotateBar({ state, imageArea, onComplete, onClear }: { state: AutoState; imageArea: number | null; onComplete(): void; onClear(): void }) {
  const { label, area } = statusText(state, imageArea);
  const [, tick] = useState(0);
  const showHint = state.hintUntil > Date.now();
  useEffect(() => {
    if (!showHint) return;
    const t = window.setTimeout(() => tick((n) => n + 1), state.hintUntil - Date.now() + 10);
    return () => window.clearTimeout(t);
  }, [showHint, state.hintUntil]);
  const busy = state.container === 'warming' || state.embedding === 'processing' || state.processing;
  const canComplete = Boolean(state.mask) && !state.processing && (state.mask?.area ?? 0) > 0;
  return (
    <div className={styles.autoBar} role="status" aria-label="Auto-Annotate status">
      <span className={styles.autoIcon} aria-hidden="true">
        {busy ? <Spinner size="sm" /> : <WandSparkles />}
      </span>
      <span className={styles.autoLabel} data-testid="auto-status">
        {label}
      </span>
      {area !== null ? (
        <span className={styles.autoArea} data-testid="auto-area">
          {area}
        </span>
      ) : null}
      {state.error ? <span className={styles.autoError}>{state.error}</span> : null}
      {showHint && canComplete ? <span className={styles.autoHint}>Return to Complete</span> : null}
      <Button size="sm" variant="ghost" icon={<Eraser />} disabled={state.points.length === 0} onClick={onClear}>
        Clear
      </Button>
      <Button size="sm" variant="primary" icon={<Check />} disabled={!canComplete} onClick={onComplete}>
        Complete
      </Button>
    </div>
  );
}

/** The proposed mask and its clicks over the canvas, following the camera. */
export function MaskOverlay({ editor, state }: { editor: Editor; state: AutoState }) {
  const camera = useCamera(editor);
  const d = useMemo(() => {
    if (!state.mask) return '';
    const ring = (r: [number, number][]) => (r.length ? `M${r.map(([x, y]) => `${x} ${y}`).join('L')}Z` : '');
    return state.mask.vellum_annotations.map((a) => ring(a.polygon.path) + a.polygon.holes.map(ring).join('')).join('');
  }, [state.mask]);
  return (
    <svg className={styles.maskOverlay} aria-hidden="true" data-testid="mask-overlay">
      {d ? (
        <g transform={`translate(${camera.x} ${camera.y}) scale(${camera.scale})`}>
          <path d={d} className={styles.maskPath} fillRule="evenodd" vectorEffect="non-scaling-stroke" />
        </g>
      ) : null}
      {state.points.map((p, i) => (
        <circle
          key={i}
          cx={p.x * camera.scale + camera.x}
          cy={p.y * camera.scale + camera.y}
          r={5}
          className={p.positive ? styles.pointPositive : styles.pointNegative}
          data-pending={p.pending || undefined}
        />
      ))}
    </svg>
  );
}
