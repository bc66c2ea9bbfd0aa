// The Auto-Annotate status bar (spec section 2: states, point count, mask area, Complete and Clear,
// the 'Return to Complete' hint, the keys of a prompt). The prompt and the proposed mask are the
// engine tool's (the editor's view.drawing, kind 'auto'); the renderer draws them like any shape.
// The bar also holds the class accepted masks get (asked for once per project, kept on this device)
// and 'Save as'. While the tool is on, the editor's fit keeps the bar's room clear (./useCanvasBarRoom.ts).
import { Eraser, Check, WandSparkles } from 'lucide-react';
import { useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { type AutoPreview, type ViewState } from '../../../engine';
import { Button } from '../../components/Button';
import { Spinner } from '../../components/Spinner';
import { HINT_MS, MASK_ERROR, POLYGON_TOLERANCES, statusText, type AutoAnnotateSession, type AutoState, type MaskOutput, type PromptInfo } from '../../editor-session/autoAnnotate';
import styles from './AnnotatePage.module.css';
import own from './AutoAnnotateBar.module.css';

/**
 * Screen pixels the bar takes at the canvas's bottom, with a gap above it: the bar's two rows
 * (about 62 px) over its 16 px offset. The e2e test editor-auto.spec checks it never covers the
 * image at fit zoom.
 */
export const AUTO_BAR_ROOM = 96;

export function useAutoState(session: AutoAnnotateSession): AutoState {
  return useSyncExternalStore(
    (cb) => session.subscribe(cb),
    () => session.getState(),
  );
}

/** The engine tool's prompt as the bar shows it (null: no prompt). */
export function promptInfo(view: ViewState): PromptInfo | null {
  const d = view.drawing;
  if (!d || d.kind !== 'auto') return null;
  const p: AutoPreview = d;
  return { points: p.points.length, area: p.mask ? p.mask.area : null, waiting: p.waiting, failed: p.failed };
}

/** 'Return to Complete' shows for a while after the first mask of a prompt. */
function useHint(hasMask: boolean): boolean {
  const [until, setUntil] = useState(0);
  const had = useRef(false);
  useEffect(() => {
    if (hasMask && !had.current) setUntil(Date.now() + HINT_MS);
    if (!hasMask) setUntil(0);
    had.current = hasMask;
  }, [hasMask]);
  const [, tick] = useState(0);
  const show = until > Date.now();
  useEffect(() => {
    if (!show) return;
    const t = window.setTimeout(() => tick((n) => n + 1), until - Date.now() + 10);
    return () => window.clearTimeout(t);
  }, [show, until]);
  return show;
}

export interface AutoAnnotateBarProps {
  state: AutoState;
  prompt: PromptInfo | null;
  imageArea: number | null;
  onComplete(): void;
  onClear(): void;
  onOutput(output: MaskOutput): void;
  /** The class of accepted masks (a ClassPicker of the polygon classes). */
  classPicker?: ReactNode;
}

const outputValue = (o: MaskOutput) => (o.kind === 'mask' ? 'mask' : `polygon-${o.tolerance}`);

/** What Complete saves: the mask, or polygons snapped to it within 1, 2 or 4 px. */
function OutputChoice({ output, onOutput }: { output: MaskOutput; onOutput(o: MaskOutput): void }) {
  return (
    <label className={styles.autoOutput}>
      <span>Save as</span>
      <select
        className={styles.autoSelect}
        value={outputValue(output)}
        onChange={(e) => {
          const v = e.target.value;
          onOutput(v === 'mask' ? { kind: 'mask' } : { kind: 'polygon', tolerance: Number(v.slice('polygon-'.length)) });
        }}
      >
        <option value="mask">Mask</option>
        {POLYGON_TOLERANCES.map((t) => (
          <option key={t} value={`polygon-${t}`}>
            Polygon, {t} px
          </option>
        ))}
      </select>
    </label>
  );
}

export function AutoAnnotateBar({ state, prompt, imageArea, onComplete, onClear, onOutput, classPicker }: AutoAnnotateBarProps) {
  const { label, area } = statusText(state, prompt, imageArea);
  const canComplete = Boolean(prompt && prompt.area !== null && prompt.area > 0 && !prompt.waiting);
  const showHint = useHint(prompt?.area != null);
  const busy = state.container === 'warming' || state.embedding === 'processing' || Boolean(prompt?.waiting);
  const error = state.error ?? (prompt?.failed ? MASK_ERROR : null);
  return (
    <div className={`${styles.autoBar} ${own.stacked}`} role="status" aria-label="Auto-Annotate status">
      <div className={own.row}>
        <span className={own.state}>
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
          {error ? <span className={styles.autoError}>{error}</span> : null}
          {showHint && canComplete ? <span className={styles.autoHint}>Return to Complete</span> : null}
        </span>
        <span className={own.actions}>
          {classPicker ? (
            <span className={styles.autoClass}>
              <span aria-hidden="true">Class</span>
              {classPicker}
            </span>
          ) : null}
          <OutputChoice output={state.output} onOutput={onOutput} />
          <Button size="sm" variant="ghost" icon={<Eraser />} disabled={!prompt} onClick={onClear}>
            Clear
          </Button>
          <Button size="sm" variant="primary" icon={<Check />} disabled={!canComplete} onClick={onComplete}>
            Complete
          </Button>
        </span>
      </div>
      <p className={own.keys} data-testid="auto-keys" title="Click adds a point · Right-click or Shift+Click removes · Ctrl+Z undoes a step · Ctrl+Shift+Z redoes · Backspace drops the last click · drag for a box">
        <kbd>Click</kbd> adds · <kbd>Right</kbd>/<kbd>Shift+Click</kbd> removes · <kbd>Ctrl+Z</kbd> undoes a step · <kbd>Ctrl+Shift+Z</kbd> redoes · <kbd>Backspace</kbd> drops the last click · drag for a box
      </p>
    </div>
  );
}
