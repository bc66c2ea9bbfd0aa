// The editor screen's History view (issue 14), apart from its layout: whether the sidebar shows
// the image's versions, the version looked at over the canvas (../VersionPreview: a second,
// read-only Editor, so the user's document and its saving are never touched) and restoring it as a
// new version. A restore reopens the image through the screen's normal open path; `opening` is
// what that path tells this hook as it goes.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { HistoryEntry, SaveDataResponse } from '../../../../contract/annotation-api';
import type { CameraState, Editor } from '../../../../engine';
import { isApiError, serverMessage } from '../../../api/client';
import { readStorage, writeStorage } from '../../../lib/storage';
import { toast } from '../../../stores/toast';
import { editorApi } from '../../../api/annotations/editorApi';
import { historyKey, useImageHistory } from '../HistoryPanel';
import type { EditorSaveLink, SaveManager } from '../../../sync/save';
import { useDocumentVersion, useEditorView } from '../useEditor';
import { useVersionPreview } from '../VersionPreview';

const HISTORY_KEY = 'vellum.editorHistoryOpen';

export interface HistoryViewOptions {
  /** The user's editor (the preview never touches it). */
  editor: Editor;
  imageId: string;
  projectId: string;
  readOnly: boolean;
  /** Why this role may not edit (null when it may): the reason a restore is refused. */
  viewOnlyReason: string | null;
  link: EditorSaveLink;
  saver: SaveManager;
  /** The screen's follow-up to a save's answer (counters, statuses, history); a restore is one. */
  followSave(imageId: string, res: SaveDataResponse): void;
  /** The sidebar is collapsed: opening the history opens it. */
  collapsed: boolean;
  expandSidebar(): void;
  /** This image's document is in the editor: a version is drawn over it, so it waits until then. */
  documentReady: RefObject<boolean>;
}

/** What the screen's image-open path tells the history view, so a restore's reopen can finish it. */
export interface HistoryOpening {
  /** An open of `imageId` starts. */
  starting(imageId: string): void;
  /** The server version the opened document builds on. */
  loadedVersion(imageId: string, version: number): void;
  /** Reopened after a restore: the camera to keep (where the user was looking); else null. */
  restoredCamera(imageId: string): CameraState | null;
  /** The open is over (ready, or failed: the stage says why). */
  finished(imageId: string): void;
}

export function useHistoryView({ editor, imageId, projectId, readOnly, viewOnlyReason, link, saver, followSave, collapsed, expandSidebar, documentReady }: HistoryViewOptions) {
  const qc = useQueryClient();
  const [historyOpen, setHistoryOpen] = useState(() => readStorage<boolean>(HISTORY_KEY, false));
  // The History view was opened from the keyboard: its list takes the focus.
  const [historyFocus, setHistoryFocus] = useState(false);

  const preview = useVersionPreview({
    editor,
    imageId,
    projectId,
    // Changes still gathering in the link go to the save manager before anything is shown.
    before: () => link.flush(),
    onExpired: (id) => void qc.invalidateQueries({ queryKey: historyKey(id) }),
  });
  const previewEditor = preview.editor;
  const previewing = preview.state !== null;
  const previewShown = preview.shown !== null;
  const previewView = useEditorView(previewEditor);
  const previewDocumentVersion = useDocumentVersion(previewEditor);
  const history = useImageHistory(imageId, projectId, (historyOpen && !collapsed) || previewing, historyOpen && !collapsed);
  const currentVersion = history.data?.pages[0]?.version ?? null;
  const restore = useRestore({ imageId, projectId, readOnly, viewOnlyReason, link, saver, followSave, preview, currentVersion });
  const { setRestoreOpen } = restore;

  const toggleHistory = useCallback(
    (fromKeyboard: boolean) => {
      // Collapsed: the sidebar opens on the history.
      const open = collapsed || !historyOpen;
      if (collapsed) expandSidebar();
      setHistoryOpen(open);
      writeStorage(HISTORY_KEY, open);
      setHistoryFocus(open && fromKeyboard);
    },
    [collapsed, historyOpen, expandSidebar],
  );

  const leavePreview = useCallback(() => {
    const refocus = focusLeavesWithPreview();
    preview.back();
    setRestoreOpen(false);
    if (refocus) focusAfterPreview();
  }, [preview, setRestoreOpen]);

  const chooseVersion = useCallback(
    (entry: HistoryEntry, current: boolean) => {
      if (current) {
        if (previewing) leavePreview();
        return;
      }
      if (preview.state?.version === entry.version && preview.state.phase !== 'error') return;
      // The preview is drawn over this image: it needs its size, and the current document first.
      if (!documentReady.current) return;
      preview.show(entry);
    },
    [previewing, preview, leavePreview, documentReady],
  );

  const onPreviewImageReady = useCallback(
    (err: Error | null) => {
      if (err) console.error('The version preview could not open the image pixels', err);
      preview.onDrawn();
    },
    [preview],
  );

  return {
    preview,
    previewEditor,
    /** A version is asked for or shown (editing is off). */
    previewing,
    /** A version is on the canvas: the zoom, the settings and the list work on it. */
    previewShown,
    previewView,
    previewDocumentVersion,
    onPreviewImageReady,
    history,
    historyOpen,
    historyFocus,
    toggleHistory,
    chooseVersion,
    leavePreview,
    currentVersion,
    restoreOpen: restore.restoreOpen,
    closeRestore: () => setRestoreOpen(false),
    openRestore: restore.openRestore,
    restoreVersion: restore.restoreVersion,
    restoring: restore.restoring,
    restoreError: restore.restoreError,
    reopenToken: restore.reopenToken,
    opening: restore.opening,
  };
}

interface RestoreOptions extends Pick<HistoryViewOptions, 'imageId' | 'projectId' | 'readOnly' | 'viewOnlyReason' | 'link' | 'saver' | 'followSave'> {
  preview: ReturnType<typeof useVersionPreview>;
  /** The history's newest version (null until it is known). */
  currentVersion: number | null;
}

/**
 * Restoring the version shown as a new version: its dialog, the call (on the version the editor's
 * document builds on), and the reopen of the image after it, which the screen's open path reports
 * through `opening`.
 */
function useRestore({ imageId, projectId, readOnly, viewOnlyReason, link, saver, followSave, preview, currentVersion }: RestoreOptions) {
  const qc = useQueryClient();
  const [restoreOpen, setRestoreOpen] = useState(false);
  const [restoring, setRestoring] = useState(false);
  const [restoreError, setRestoreError] = useState<{ message: string; retry: boolean } | null>(null);
  // The server version the editor's document builds on (load-data, then this screen's saves and
  // merges): with the history's current version, the base a restore is checked against.
  const knownVersion = useRef<{ imageId: string; version: number } | null>(null);
  // Set by a restore: the image is opened again (the normal open path), keeping this view, and the
  // preview ends once the restored document is in the editor.
  const afterRestore = useRef<{ imageId: string; camera: CameraState; from: number; to: number } | null>(null);
  // Bumped by a restore: the screen opens the image again.
  const [reopenToken, setReopenToken] = useState(0);
  const shownImage = useRef(imageId);
  shownImage.current = imageId;

  // Saves and merges of the current document move the version it builds on.
  useEffect(() => {
    const moved = (id: string, version: number) => {
      const known = knownVersion.current;
      if (known?.imageId === id && version > known.version) knownVersion.current = { imageId: id, version };
    };
    const offSaved = saver.onSaved((id, res) => moved(id, res.version));
    const offMerged = saver.onMerged((id, merge) => moved(id, merge.version));
    return () => {
      offSaved();
      offMerged();
    };
  }, [saver]);

  // The open after a restore is done (or failed: the stage says why): the preview ends.
  const finishRestore = useRef<(imageId: string) => void>(() => undefined);
  finishRestore.current = (id: string) => {
    const done = afterRestore.current;
    if (!done || done.imageId !== id) return;
    afterRestore.current = null;
    const refocus = focusLeavesWithPreview();
    preview.back({ keepCamera: false });
    if (refocus) focusAfterPreview();
    toast(`Restored version ${done.from.toLocaleString()} as version ${done.to.toLocaleString()}`, 'success', 4000);
  };
  // Reads refs only, so the open path can use it from its effect without depending on it.
  const opening = useMemo<HistoryOpening>(
    () => ({
      starting(id) {
        // A restore's reopen that another image interrupted is over.
        if (afterRestore.current && afterRestore.current.imageId !== id) afterRestore.current = null;
      },
      loadedVersion(id, version) {
        knownVersion.current = { imageId: id, version };
      },
      restoredCamera: (id) => (afterRestore.current?.imageId === id ? afterRestore.current.camera : null),
      finished: (id) => finishRestore.current(id),
    }),
    [],
  );

  const openRestore = () => {
    if (!preview.state || preview.state.phase !== 'ready' || readOnly) return;
    setRestoreError(null);
    setRestoreOpen(true);
  };

  const restoreVersion = async () => {
    const shown = preview.state;
    if (!shown || shown.phase !== 'ready' || readOnly || restoring) return;
    setRestoring(true);
    setRestoreError(null);
    try {
      // This image's pending changes are saved first: they are part of what the restore replaces,
      // and the history keeps them.
      link.flush();
      await saver.flush();
      if (shownImage.current !== imageId) return;
      const status = saver.status();
      if (status.unsavedImages > 0) {
        setRestoreError({ message: `Your latest changes are not saved yet (${status.label}), so nothing was restored. Try again once they are saved.`, retry: true });
        return;
      }
      const known = knownVersion.current?.imageId === imageId ? knownVersion.current.version : 0;
      const base = Math.max(known, currentVersion ?? 0);
      const res = await editorApi.restore(imageId, projectId, shown.version, base);
      followSave(imageId, res);
      if (shownImage.current !== imageId) {
        // The user moved on meanwhile: the image opens with the restored annotations next time.
        toast(`Restored version ${shown.version.toLocaleString()} as version ${res.version.toLocaleString()}`, 'success', 4000);
        return;
      }
      knownVersion.current = { imageId, version: res.version };
      afterRestore.current = { imageId, camera: preview.editor.getCamera(), from: shown.version, to: res.version };
      setRestoreOpen(false);
      setReopenToken((n) => n + 1);
    } catch (err) {
      console.error('Failed to restore the version', err);
      const status = isApiError(err) ? err.status : 0;
      if (status === 409 || status === 410) void qc.invalidateQueries({ queryKey: historyKey(imageId) });
      setRestoreError(
        status === 409
          ? { message: 'Someone saved this image meanwhile; look at the history again.', retry: false }
          : status === 410
            ? { message: 'This version is no longer kept.', retry: false }
            : status === 403
              ? { message: serverMessage(err, viewOnlyReason ?? 'Your role cannot restore versions.'), retry: false }
              : { message: serverMessage(err, 'The version could not be restored. Check your connection and try again.'), retry: true },
      );
    } finally {
      setRestoring(false);
    }
  };

  return { restoreOpen, setRestoreOpen, openRestore, restoreVersion, restoring, restoreError, reopenToken, opening };
}

/** The focus is on the preview's banner (or nowhere), which goes away with the preview. */
function focusLeavesWithPreview(): boolean {
  const active = document.activeElement;
  return !active || active === document.body || (active instanceof HTMLElement && Boolean(active.closest('[data-version-banner]')));
}

/** After the preview: the focus goes to the history's current entry (or the canvas), not to the page. */
function focusAfterPreview(): void {
  requestAnimationFrame(() => {
    const target = document.querySelector<HTMLElement>('[role="listbox"][aria-label="Versions"] [role="option"][tabindex="0"]') ?? document.querySelector<HTMLElement>('[data-testid="editor-canvas"]');
    target?.focus();
  });
}
