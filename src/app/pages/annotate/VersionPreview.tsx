// Looking at an earlier version of the image's annotations (issue 14), as React draws it: the
// banner over the canvas and the restore dialog. The version itself is held by a second, read-only
// Editor that the session owns (src/app/editor-session/history.ts: loading it, going back,
// restoring it), so nothing shown here can reach a save.
import { CircleAlert, History, RotateCcw } from 'lucide-react';
import type { PreviewState, RestoreError } from '../../editor-session/history';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Spinner } from '../../components/Spinner';
import { Tooltip } from '../../components/Tooltip';
import { formatExact, formatWhen, savedBy, useNow } from './HistoryPanel';
import styles from './AnnotatePage.module.css';

export interface VersionBannerProps {
  state: PreviewState;
  /** Why this role may not restore (null when it may). */
  restoreDeniedReason: string | null;
  onRestore(): void;
  onBack(): void;
  onRetry(): void;
}

/** Over the canvas: which version is shown, by whom and when, and the two ways out. */
export function VersionBanner({ state, restoreDeniedReason, onRestore, onBack, onRetry }: VersionBannerProps) {
  const now = useNow();
  const e = state.entry;
  return (
    <div className={styles.versionBanner} role="region" aria-label="Version preview" data-version-banner>
      <span className={styles.versionBannerIcon} aria-hidden="true">
        {state.phase === 'loading' ? <Spinner size="sm" /> : state.phase === 'error' ? <CircleAlert data-tone="danger" /> : <History />}
      </span>
      <span className={styles.versionBannerText} role="status">
        {state.phase === 'error' ? (
          <>
            <strong>Version {e.version.toLocaleString()} could not be shown.</strong> <span className={styles.versionBannerWhy}>{state.error}</span>
          </>
        ) : (
          <>
            <strong>Viewing version {e.version.toLocaleString()}</strong>
            <span aria-hidden="true"> · </span>
            <span className={styles.versionBannerWhy}>
              saved by {savedBy(e)},{' '}
              <Tooltip content={formatExact(e.saved_at)} side="bottom">
                <time dateTime={e.saved_at}>
                  {formatWhen(e.saved_at, now)}
                </time>
              </Tooltip>
            </span>
            {state.phase === 'loading' ? <span className="visually-hidden"> (loading)</span> : null}
          </>
        )}
      </span>
      {state.phase === 'error' && state.retryable ? (
        <Button size="sm" variant="secondary" onClick={onRetry}>
          Try again
        </Button>
      ) : state.phase !== 'error' ? (
        <Button size="sm" variant="primary" icon={<RotateCcw />} disabled={state.phase !== 'ready'} disabledReason={restoreDeniedReason} onClick={onRestore}>
          Restore this version
        </Button>
      ) : null}
      <Tooltip content={<span className={styles.tipKey}>Back to current <kbd>Esc</kbd></span>} side="bottom">
        <Button size="sm" variant="secondary" onClick={onBack} aria-keyshortcuts="Escape">
          Back to current
        </Button>
      </Tooltip>
    </div>
  );
}

export interface RestoreDialogProps {
  open: boolean;
  state: PreviewState | null;
  /** The current version, as the history shows it. */
  currentVersion: number | null;
  filename: string;
  /** This image has changes not saved yet: they are saved first. */
  unsaved: boolean;
  busy: boolean;
  error: RestoreError | null;
  onConfirm(): void;
  onClose(): void;
}

export function RestoreDialog({ open, state, currentVersion, filename, unsaved, busy, error, onConfirm, onClose }: RestoreDialogProps) {
  const version = state?.version ?? 0;
  const count = state?.count ?? 0;
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => !o && onClose()}
      dismissible={!busy}
      title={`Restore version ${version.toLocaleString()}?`}
      icon={<RotateCcw />}
      description={
        <>
          The {count.toLocaleString()} annotation{count === 1 ? '' : 's'} of version {version.toLocaleString()} become the current annotations of {filename}, saved as a new version.
          {currentVersion !== null ? ` Version ${currentVersion.toLocaleString()} stays in the history, so you can restore it again.` : ''}
          {unsaved ? ' Your unsaved changes are saved first.' : ''}
        </>
      }
      footer={
        <>
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button variant="primary" icon={<RotateCcw />} busy={busy} busyLabel="Restoring..." disabled={Boolean(error && !error.retry)} onClick={onConfirm}>
            Restore version {version.toLocaleString()}
          </Button>
        </>
      }
    >
      {error ? (
        <p className={styles.dialogError} role="alert">
          <CircleAlert aria-hidden="true" />
          <span>{error.message}</span>
        </p>
      ) : null}
    </Dialog>
  );
}
