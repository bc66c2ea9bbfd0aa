// The top bar's save state: where the user's changes are (saved, saving, offline...), or, for a
// role that may not edit, that nothing here is saved and why.
import { Check, CloudOff, Eye, Loader2, TriangleAlert } from 'lucide-react';
import type { SaveStatus } from '../../sync/save';
import styles from './AnnotatePage.module.css';

/** In place of the save state for a role that may not edit: what it means and why. */
export function ViewOnlyIndicator({ reason }: { reason: string }) {
  return (
    <span className={styles.viewOnly} role="note" title={`View only: ${reason}. Nothing you do here is saved.`}>
      <span className={styles.viewOnlyBadge}>
        <Eye aria-hidden="true" />
        View only
      </span>
      <span className={styles.viewOnlyWhy}>{reason}</span>
    </span>
  );
}

export function SaveIndicator({ status }: { status: SaveStatus }) {
  const icon =
    status.state === 'saving' ? (
      <Loader2 className={styles.spin} />
    ) : status.state === 'saved' || status.state === 'conflict-merged' ? (
      <Check />
    ) : status.state === 'offline' || status.state === 'needs-sign-in' ? (
      <CloudOff />
    ) : status.state === 'error' ? (
      <TriangleAlert />
    ) : (
      <Loader2 />
    );
  return (
    <span className={styles.saveState} data-state={status.state} role="status" aria-live="polite" title={status.detail}>
      <span aria-hidden="true">{icon}</span>
      {status.label}
    </span>
  );
}
