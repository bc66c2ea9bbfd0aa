// Looking at an earlier version of the image's annotations (issue 14). The version is loaded into
// a second Editor of its own, read only, drawn by a second canvas laid over the editor's: the
// user's Editor, its document, its undo history and its link to the save manager are never
// touched, so nothing shown here can reach a save, and going back is only taking the layer away
// (the current document is exactly as it was, unsaved changes and undo included). Merges and saves
// of the current document go on underneath meanwhile.
import { CircleAlert, History, RotateCcw } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { HistoryEntry } from '../../../contract/annotation-api';
import { Editor } from '../../../engine';
import { isApiError, serverMessage } from '../../api/client';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Spinner } from '../../components/Spinner';
import { Tooltip } from '../../components/Tooltip';
import { editorApi } from '../../api/annotations/editorApi';
import { formatExact, formatWhen, savedBy, useNow } from './HistoryPanel';
import styles from './AnnotatePage.module.css';

/** Why editing controls are off while an earlier version is shown. */
export const PREVIEW_REASON = 'Go back to the current version to edit';

export interface PreviewState {
  imageId: string;
  /** The version asked for (the one shown may still be the previous one while it loads). */
  version: number;
  entry: HistoryEntry;
  phase: 'loading' | 'ready' | 'error';
  error?: string;
  /** The error may pass on another try (a network failure, not a version that is gone). */
  retryable?: boolean;
  /** Annotations in the version, once loaded. */
  count?: number;
}

export interface VersionPreview {
  /** The read-only editor that holds the version shown. */
  editor: Editor;
  /** Null while the current document is shown. */
  state: PreviewState | null;
  /** The version the preview editor holds and its canvas shows; null while none (the canvas is not mounted). */
  shown: number | null;
  /** The preview canvas has drawn its pixels (it stays invisible until then, over the current document). */
  drawn: boolean;
  onDrawn(): void;
  show(entry: HistoryEntry): void;
  /** Back to the current document; `keepCamera`: the editor takes the preview's view (default true). */
  back(opts?: { keepCamera?: boolean }): void;
}

/**
 * The preview's state. `before` runs as a version is asked for (the screen hands the changes still
 * gathering in its save link to the save manager, so nothing of the user's waits while the preview
 * is up).
 */
export function useVersionPreview(opts: { editor: Editor; imageId: string; projectId: string; before?: () => void; onExpired?: (imageId: string) => void }): VersionPreview {
  const { editor, imageId, projectId } = opts;
  const previewEditor = useMemo(() => {
    const e = new Editor();
    e.setReadOnly(true);
    return e;
  }, []);
  const [state, setState] = useState<PreviewState | null>(null);
  const [shown, setShown] = useState<number | null>(null);
  const [drawn, setDrawn] = useState(false);
  const generation = useRef(0);
  const shownRef = useRef<number | null>(null);
  const optsRef = useRef(opts);
  optsRef.current = opts;

  const reset = useCallback(
    (keepCamera: boolean) => {
      generation.current++;
      previewEditor.cancelLoad();
      if (keepCamera && shownRef.current !== null) editor.setCamera(previewEditor.getCamera());
      shownRef.current = null;
      setState(null);
      setShown(null);
      setDrawn(false);
    },
    [editor, previewEditor],
  );

  // Another image: its own history, nothing shown.
  useEffect(() => () => reset(false), [imageId, reset]);

  // The preview's document is dropped once its canvas is gone.
  useEffect(() => {
    if (shown === null && previewEditor.annotationCount > 0) previewEditor.load([]);
  }, [shown, previewEditor]);

  const show = useCallback(
    (entry: HistoryEntry) => {
      const gen = ++generation.current;
      optsRef.current.before?.();
      setState({ imageId, version: entry.version, entry, phase: 'loading' });
      const settle = (patch: Partial<PreviewState>) => setState((s) => (s && s.version === entry.version && gen === generation.current ? { ...s, ...patch } : s));
      void (async () => {
        try {
          const data = await editorApi.loadVersion(imageId, projectId, entry.version, { isCancelled: () => gen !== generation.current });
          if (!data || gen !== generation.current) return;
          previewEditor.setImageSize(editor.getImageSize());
          if (!(await previewEditor.loadStoredAsync(data.annotations)) || gen !== generation.current) return;
          // The first version shown starts where the user was looking.
          if (shownRef.current === null) previewEditor.setCamera(editor.getCamera());
          shownRef.current = entry.version;
          setShown(entry.version);
          settle({ phase: 'ready', count: data.annotations.length });
        } catch (err) {
          if (gen !== generation.current) return;
          const gone = isApiError(err) && err.status === 410;
          const missing = isApiError(err) && err.status === 404;
          const invalid = err instanceof Error && err.name === 'ZodError';
          if (gone) optsRef.current.onExpired?.(imageId);
          console.error(`Failed to load version ${entry.version}`, err);
          settle({
            phase: 'error',
            retryable: !gone && !missing && !invalid,
            error: gone
              ? 'This version is no longer kept.'
              : missing
                ? 'This version does not exist.'
                : invalid
                  ? 'Its annotations are not valid, so they cannot be shown.'
                  : serverMessage(err, 'Check your connection and try again.'),
          });
        }
      })();
    },
    [imageId, projectId, editor, previewEditor],
  );

  const back = useCallback((o: { keepCamera?: boolean } = {}) => reset(o.keepCamera ?? true), [reset]);
  const onDrawn = useCallback(() => setDrawn(true), []);
  return useMemo(() => ({ editor: previewEditor, state, shown, drawn, onDrawn, show, back }), [previewEditor, state, shown, drawn, onDrawn, show, back]);
}

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
  error: { message: string; retry: boolean } | null;
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
