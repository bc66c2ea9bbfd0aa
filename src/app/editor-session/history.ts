// The editor session's History (issue 14), without React: the version looked at and restoring it.
// A version is loaded into a second Editor of its own, read only, which the screen draws over the
// user's: the user's Editor, its document, its undo history and its link to the save manager are
// never touched, so nothing shown here can reach a save, and going back is only taking the layer
// away (the current document is exactly as it was, unsaved changes and undo included). A restore
// saves the user's pending changes, asks the server to make the version current as a new version,
// and reopens the image through the screen's normal open path (`opening`); the preview ends once
// the restored document is in the editor. The screen reads `getState()`
// (pages/annotate/hooks/useHistoryView.ts).
import type { HistoryEntry, SaveDataResponse } from '../../contract/annotation-api';
import { Editor, type CameraState } from '../../engine';
import type { LoadedAnnotations } from '../api/annotations/editorApi';
import { isApiError, serverMessage } from '../api/client';
import type { EditorSaveLink, SaveManager } from '../sync/save';
import type { OpeningHooks } from './openImage';

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

export interface RestoreError {
  message: string;
  /** Trying again may work (the dialog's Restore stays enabled). */
  retry: boolean;
}

export interface HistoryState {
  /** The version asked for or shown; null while the current document is shown. */
  preview: PreviewState | null;
  /** The version the preview editor holds and its canvas shows; null while none (the canvas is not mounted). */
  shown: number | null;
  /** The preview canvas has drawn its pixels (it stays invisible until then, over the current document). */
  drawn: boolean;
  restoreOpen: boolean;
  restoring: boolean;
  restoreError: RestoreError | null;
  /** Bumped by a restore: the screen opens the image again. */
  reopenToken: number;
}

/** The server calls the History needs (editorApi's by default, see session.ts). */
export interface VersionsApi {
  loadVersion(imageId: string, projectId: string, version: number, options: { isCancelled(): boolean }): Promise<LoadedAnnotations | undefined>;
  restore(imageId: string, projectId: string, version: number, baseVersion: number): Promise<SaveDataResponse>;
}

export interface VersionHistoryOptions {
  /** The user's editor (only its camera and image size are read, and its camera set on the way back). */
  editor: Editor;
  link: EditorSaveLink;
  saver: SaveManager;
  projectId: string;
  api: VersionsApi;
  tell(message: string, tone: 'success', ms: number): void;
}

/** What a restore needs from the screen. */
export interface RestoreRequest {
  readOnly: boolean;
  /** The history's newest version (null until it is known). */
  currentVersion: number | null;
  /** Why this role may not edit (null when it may): said when the server refuses. */
  deniedReason: string | null;
}

const INITIAL: HistoryState = { preview: null, shown: null, drawn: false, restoreOpen: false, restoring: false, restoreError: null, reopenToken: 0 };

export class VersionHistory {
  /** The read-only editor that holds the version shown. */
  readonly previewEditor: Editor;
  private state: HistoryState = INITIAL;
  private readonly listeners = new Set<() => void>();
  private readonly staleListeners = new Set<(imageId: string) => void>();
  private readonly restoredListeners = new Set<(imageId: string, res: SaveDataResponse) => void>();
  /** The image the screen shows (null between two). */
  private imageId: string | null = null;
  /** Which show() is the latest: an earlier one's answer is dropped. */
  private generation = 0;
  private shownVersion: number | null = null;
  // The server version the editor's document builds on (load-data, then the saves and merges):
  // with the history's current version, the base a restore is checked against.
  private knownVersion: { imageId: string; version: number } | null = null;
  // Set by a restore: the image is opened again (the normal open path), keeping this view, and
  // the preview ends once the restored document is in the editor.
  private afterRestore: { imageId: string; camera: CameraState; from: number; to: number } | null = null;
  private previewEnds: (() => (() => void) | void) | null = null;

  constructor(private readonly opts: VersionHistoryOptions) {
    this.previewEditor = new Editor();
    this.previewEditor.setReadOnly(true);
  }

  getState = (): HistoryState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** A version is gone, or someone saved meanwhile: the image's list of versions is out of date. */
  onStale(fn: (imageId: string) => void): () => void {
    this.staleListeners.add(fn);
    return () => this.staleListeners.delete(fn);
  }

  /** A restore's answer, which the screen follows like a save's (counters, statuses, the history). */
  onRestored(fn: (imageId: string, res: SaveDataResponse) => void): () => void {
    this.restoredListeners.add(fn);
    return () => this.restoredListeners.delete(fn);
  }

  /**
   * `fn` runs as the user's preview ends (Back to current, Esc, a restore done); what it returns
   * runs after (the screen moves the focus off the banner that goes away).
   */
  setPreviewEnds(fn: () => (() => void) | void): () => void {
    this.previewEnds = fn;
    return () => {
      if (this.previewEnds === fn) this.previewEnds = null;
    };
  }

  /** Saves and merges of the current document move the version it builds on. */
  start(): () => void {
    const moved = (id: string, version: number) => {
      const known = this.knownVersion;
      if (known?.imageId === id && version > known.version) this.knownVersion = { imageId: id, version };
    };
    const offSaved = this.opts.saver.onSaved((id, res) => moved(id, res.version));
    const offMerged = this.opts.saver.onMerged((id, merge) => moved(id, merge.version));
    return () => {
      offSaved();
      offMerged();
    };
  }

  /** The screen shows `imageId`: its own history, nothing shown. */
  setImage(imageId: string): void {
    if (this.imageId === imageId) return;
    if (this.imageId !== null) this.reset(false);
    this.imageId = imageId;
  }

  /** The screen leaves `imageId` (another image, or the screen closes): a version shown goes. */
  leaveImage(imageId: string): void {
    if (this.imageId !== imageId) return;
    this.imageId = null;
    this.reset(false);
  }

  /** A version is asked for or shown: editing is off. */
  isPreviewing(): boolean {
    return this.state.preview !== null;
  }

  /** The user chose an entry of the list; `current` is the newest. A version waits for this image's document (`documentReady`): it is drawn over it. */
  choose(entry: HistoryEntry, current: boolean, documentReady: boolean): void {
    const p = this.state.preview;
    if (current) {
      if (p) this.leave();
      return;
    }
    if (p?.version === entry.version && p.phase !== 'error') return;
    if (!documentReady) return;
    this.show(entry);
  }

  /** Loads `entry`'s version into the preview editor. Changes still gathering go to the save manager first. */
  show(entry: HistoryEntry): void {
    const imageId = this.imageId;
    if (imageId === null) return;
    const { editor, link, api, projectId } = this.opts;
    const gen = ++this.generation;
    link.flush();
    this.set({ preview: { imageId, version: entry.version, entry, phase: 'loading' } });
    const current = () => gen === this.generation && this.state.preview?.version === entry.version;
    void (async () => {
      try {
        const data = await api.loadVersion(imageId, projectId, entry.version, { isCancelled: () => gen !== this.generation });
        if (!data || gen !== this.generation) return;
        this.previewEditor.setImageSize(editor.getImageSize());
        if (!(await this.previewEditor.loadStoredAsync(data.annotations)) || gen !== this.generation) return;
        // The first version shown starts where the user was looking.
        if (this.shownVersion === null) this.previewEditor.setCamera(editor.getCamera());
        this.shownVersion = entry.version;
        const p = this.state.preview;
        this.set({ shown: entry.version, ...(current() && p ? { preview: { ...p, phase: 'ready', count: data.annotations.length } } : {}) });
      } catch (err) {
        if (gen !== this.generation) return;
        const gone = isApiError(err) && err.status === 410;
        const missing = isApiError(err) && err.status === 404;
        const invalid = err instanceof Error && err.name === 'ZodError';
        if (gone) this.stale(imageId);
        console.error(`Failed to load version ${entry.version}`, err);
        const p = this.state.preview;
        if (!current() || !p) return;
        const error = gone ? 'This version is no longer kept.' : missing ? 'This version does not exist.' : invalid ? 'Its annotations are not valid, so they cannot be shown.' : serverMessage(err, 'Check your connection and try again.');
        this.set({ preview: { ...p, phase: 'error', retryable: !gone && !missing && !invalid, error } });
      }
    })();
  }

  /** Back to the current document, looking where the preview was. */
  leave(): void {
    this.ending(() => {
      this.reset(true);
      this.set({ restoreOpen: false });
    });
  }

  /** The preview canvas drew its pixels (or failed to: the shapes are shown anyway). */
  drawn(err: Error | null): void {
    if (err) console.error('The version preview could not open the image pixels', err);
    this.set({ drawn: true });
  }

  /** The preview's document is dropped once its canvas is gone (the screen calls this after it unmounts it). */
  dropDocument(): void {
    if (this.state.shown === null && this.previewEditor.annotationCount > 0) this.previewEditor.load([]);
  }

  openRestore(readOnly: boolean): void {
    const p = this.state.preview;
    if (!p || p.phase !== 'ready' || readOnly) return;
    this.set({ restoreError: null, restoreOpen: true });
  }

  closeRestore(): void {
    this.set({ restoreOpen: false });
  }

  /**
   * Restores the version shown as a new version: the image's pending changes are saved first (they
   * are part of what the restore replaces, and the history keeps them), then the server makes the
   * version current on the version the editor's document builds on, and the image opens again.
   */
  async restore({ readOnly, currentVersion, deniedReason }: RestoreRequest): Promise<void> {
    const shown = this.state.preview;
    const imageId = this.imageId;
    if (!shown || shown.phase !== 'ready' || readOnly || this.state.restoring || imageId === null) return;
    const { link, saver, api, projectId, tell } = this.opts;
    this.set({ restoring: true, restoreError: null });
    try {
      link.flush();
      await saver.flush();
      if (this.imageId !== imageId) return;
      const status = saver.status();
      if (status.unsavedImages > 0) {
        this.set({ restoreError: { message: `Your latest changes are not saved yet (${status.label}), so nothing was restored. Try again once they are saved.`, retry: true } });
        return;
      }
      const known = this.knownVersion?.imageId === imageId ? this.knownVersion.version : 0;
      const res = await api.restore(imageId, projectId, shown.version, Math.max(known, currentVersion ?? 0));
      for (const fn of [...this.restoredListeners]) fn(imageId, res);
      if (this.imageId !== imageId) {
        // The user moved on meanwhile: the image opens with the restored annotations next time.
        tell(`Restored version ${shown.version.toLocaleString()} as version ${res.version.toLocaleString()}`, 'success', 4000);
        return;
      }
      this.knownVersion = { imageId, version: res.version };
      this.afterRestore = { imageId, camera: this.previewEditor.getCamera(), from: shown.version, to: res.version };
      this.set({ restoreOpen: false, reopenToken: this.state.reopenToken + 1 });
    } catch (err) {
      console.error('Failed to restore the version', err);
      const status = isApiError(err) ? err.status : 0;
      if (status === 409 || status === 410) this.stale(imageId);
      this.set({ restoreError: restoreFailure(status, err, deniedReason) });
    } finally {
      this.set({ restoring: false });
    }
  }

  /** What the screen's open path tells the History, so a restore's reopen can finish it. */
  readonly opening: OpeningHooks = {
    starting: (id) => {
      // A restore's reopen that another image interrupted is over.
      if (this.afterRestore && this.afterRestore.imageId !== id) this.afterRestore = null;
    },
    loadedVersion: (id, version) => {
      this.knownVersion = { imageId: id, version };
    },
    restoredCamera: (id) => (this.afterRestore?.imageId === id ? this.afterRestore.camera : null),
    // The open after a restore is done (or failed: the stage says why): the preview ends.
    finished: (id) => {
      const done = this.afterRestore;
      if (!done || done.imageId !== id) return;
      this.afterRestore = null;
      this.ending(() => this.reset(false));
      this.opts.tell(`Restored version ${done.from.toLocaleString()} as version ${done.to.toLocaleString()}`, 'success', 4000);
    },
  };

  private ending(end: () => void): void {
    const after = this.previewEnds?.();
    end();
    if (after) after();
  }

  private reset(keepCamera: boolean): void {
    this.generation++;
    this.previewEditor.cancelLoad();
    if (keepCamera && this.shownVersion !== null) this.opts.editor.setCamera(this.previewEditor.getCamera());
    this.shownVersion = null;
    this.set({ preview: null, shown: null, drawn: false });
  }

  private stale(imageId: string): void {
    for (const fn of [...this.staleListeners]) fn(imageId);
  }

  private set(patch: Partial<HistoryState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l();
  }
}

function restoreFailure(status: number, err: unknown, deniedReason: string | null): RestoreError {
  if (status === 409) return { message: 'Someone saved this image meanwhile; look at the history again.', retry: false };
  if (status === 410) return { message: 'This version is no longer kept.', retry: false };
  if (status === 403) return { message: serverMessage(err, deniedReason ?? 'Your role cannot restore versions.'), retry: false };
  return { message: serverMessage(err, 'The version could not be restored. Check your connection and try again.'), retry: true };
}
