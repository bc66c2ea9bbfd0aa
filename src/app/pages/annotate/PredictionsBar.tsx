// The predictions bar (issue 34 §3), over the top of the canvas while the open image has a model's
// pending predictions: how many are pending and shown, the score under which they are hidden (a
// panel preference, kept per browser like the transparency), Accept all (the shown ones) and
// Reject all (every pending one; asks first when more than a few go), and the review keys. Each
// action is one undo step of the engine (Editor.predictions), saved and sent to live peers as
// any edit is.
import { Check, Sparkles, X } from 'lucide-react';
import { useState } from 'react';
import type { Editor } from '../../../engine';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import styles from './PredictionsBar.module.css';

/**
 * Screen pixels the bar takes at the canvas's top, with a gap under it: its one row (about 44 px)
 * under its 12 px offset. The fit keeps it clear (./useCanvasBarRoom.ts), so at fit zoom the bar
 * never covers the image's top edge (e2e predictions.spec).
 */
export const PREDICTIONS_BAR_ROOM = 64;

/** Reject all asks first when it would delete more than this many. */
export const REJECT_ALL_ASKS_OVER = 3;

export interface PredictionsBarProps {
  /** The counts are read at each render: the screen renders on every document and view change. */
  editor: Editor;
  minScore: number;
  onMinScore(score: number): void;
  /** Why accepting and rejecting are not offered (a read-only role, an earlier version shown), or null. */
  readOnlyReason: string | null;
}

export function PredictionsBar({ editor, minScore, onMinScore, readOnlyReason }: PredictionsBarProps) {
  const [confirming, setConfirming] = useState<number | null>(null);
  const { pending, shown } = editor.predictions.counts();
  if (pending === 0) return null;
  const rejectAll = () => {
    setConfirming(null);
    editor.predictions.rejectAll();
  };
  const askRejectAll = () => (pending > REJECT_ALL_ASKS_OVER ? setConfirming(pending) : rejectAll());
  return (
    <div className={styles.bar} role="region" aria-label="Predictions">
      <span className={styles.icon} aria-hidden="true">
        <Sparkles />
      </span>
      <span className={styles.count} data-testid="predictions-pending">
        {pending} prediction{pending === 1 ? '' : 's'} pending
      </span>
      {shown < pending ? <span className={styles.shown}>{shown} shown</span> : null}
      <label className={styles.score}>
        <span>Min score</span>
        <input type="range" min={0} max={1} step={0.05} value={minScore} aria-label="Minimum score of the predictions shown" onChange={(e) => onMinScore(Number(e.target.value))} />
        <span className={styles.scoreValue}>{minScore.toFixed(2)}</span>
      </label>
      <div className={styles.actions}>
        <Button size="sm" icon={<Check />} disabled={shown === 0 || readOnlyReason !== null} disabledReason={readOnlyReason ?? undefined} onClick={() => editor.predictions.acceptAll()}>
          Accept all ({shown})
        </Button>
        <Button size="sm" icon={<X />} disabled={readOnlyReason !== null} disabledReason={readOnlyReason ?? undefined} onClick={askRejectAll}>
          Reject all ({pending})
        </Button>
      </div>
      <p className={styles.keys}>
        <kbd>Alt+↓</kbd> next · <kbd>Enter</kbd> accept · <kbd>Delete</kbd> reject
      </p>
      <Dialog
        open={confirming !== null}
        onOpenChange={(open) => (!open ? setConfirming(null) : undefined)}
        tone="danger"
        icon={<X />}
        title="Reject all predictions?"
        description={`All ${confirming ?? 0} pending predictions on this image are deleted, those the score hides too. Undo brings them back.`}
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirming(null)}>
              Cancel
            </Button>
            <Button variant="danger" onClick={rejectAll}>
              Reject all
            </Button>
          </>
        }
      />
    </div>
  );
}
