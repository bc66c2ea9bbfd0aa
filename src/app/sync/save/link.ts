// The editor's side of saving. The shapes the user changes reach the save manager as deltas,
// gathered for 150 ms so a drag does not write to the device store on every pointer move
// (deletions go at once). A merged conflict comes back as a change to the live document, not a
// reload: shapes changed here since the last hand-over are newer than the merge and stay, and
// so do the selection, undo history and a drag in progress.
import { editorToStored, parseStoredAnnotations, type Editor, type EditorAnnotation, type LoadOptions } from '../../../engine';
import type { StoredAnnotation } from '../../../contract/annotations';
import type { AbsorbedChange, ImageRef, MergeResult, RemoteChange, RemoteOutcome, SaveManager } from './types';

export const GATHER_MS = 150;

export interface EditorSaveLinkOptions {
  gatherMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  /** Changes wait in the gathering window: the top bar must not say 'Saved' then. */
  onGathering?: (gathering: boolean) => void;
  /** A merge reached the open image and was applied. */
  onMerged?: (merge: MergeResult) => void;
  /** A change saved elsewhere met the user's own edits of this image (see Overlap). */
  onOverlap?: (overlap: Overlap) => void;
  log?: (message: string, err?: unknown) => void;
}

/**
 * Another person's saved change touched shapes the user edited here: both edited them, the later
 * edit wins. `overwritten`: shapes the user saved in the last minutes (RECENT_EDIT_MS) that the
 * change replaced or removed, or changed here but not saved yet before the change was saved
 * (theirs is later). `theirsWon`: those of them whose unsaved change here was dropped: only the
 * other person can be told (live `overlap`), no version says so. `kept`: shapes the user changed
 * later and has not saved yet (pending or gathering): the user's shape stays and its save follows
 * on the new version (the user's is later). `by`: who saved the change (null: not known, as for a
 * rebased save's skipped versions); the change spans the versions after `since` up to `version`.
 */
export interface Overlap {
  by: string | null;
  since: number;
  version: number;
  overwritten: string[];
  theirsWon: string[];
  kept: string[];
}

/** Saved shapes that went into the document (see EditorSaveLink.onServerChange). */
export interface ServerChange {
  upserts: readonly StoredAnnotation[];
  removed_ids: readonly string[];
}

export class EditorSaveLink {
  private ref: ImageRef | null = null;
  private quiet = false;
  private changed = new Set<string>();
  /** The whole document was replaced since the last hand-over (remove-all, replace-all and their undo). */
  private replaced = false;
  private timer: unknown = null;
  private readonly gatherMs: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  private readonly log: (message: string, err?: unknown) => void;

  constructor(
    private readonly editor: Editor,
    private readonly saver: SaveManager,
    private readonly opts: EditorSaveLinkOptions = {},
  ) {
    this.gatherMs = opts.gatherMs ?? GATHER_MS;
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
    this.log = opts.log ?? ((m, e) => console.warn(m, e));
  }

  /** Listens to the editor and to merges; returns the function that stops it. */
  start(): () => void {
    const offEditor = this.editor.subscribe((change) => {
      if (!change.document || this.quiet || this.loading > 0 || !this.ref) return;
      if (change.document.all) {
        // No list of what left: every shape goes, and the manager removes the ones it lacks.
        this.replaced = true;
        // Another person's drafts shown here are theirs, never saved here (their save brings them).
        const theirs = new Set(this.othersDrafts());
        for (const id of this.editor.getOrderedIds()) if (!theirs.has(id)) this.changed.add(id);
        this.tellEdit(this.editor.getOrderedIds());
        this.flush(true);
        return;
      }
      const ids = change.document.ids;
      this.tellEdit(ids);
      let removed = false;
      for (const id of ids) {
        this.changed.add(id);
        if (!removed && !this.editor.getAnnotation(id)) removed = true;
      }
      if (removed) this.flush(true);
      else if (this.timer === null) {
        this.opts.onGathering?.(true);
        this.timer = this.setTimer(() => {
          this.timer = null;
          this.flush();
        }, this.gatherMs);
      }
    });
    const offMerged = this.saver.onMerged((imageId, merge) => this.applyMerge(imageId, merge));
    const offAbsorbed = this.saver.onAbsorbed((imageId, absorbed) => this.applyAbsorbed(imageId, absorbed));
    return () => {
      offEditor();
      offMerged();
      offAbsorbed();
      this.cancelTimer();
    };
  }

  /**
   * The user's own edits of the attached image, as they are made (before the gathering window):
   * the ids changed. The live image sends them to the others as a draft (issue 35).
   */
  onEdit(listener: (ids: readonly string[]) => void): () => void {
    this.editListeners.add(listener);
    return () => this.editListeners.delete(listener);
  }

  /**
   * Saved shapes that went into the document outside the live channel (a rebased save's skipped
   * versions, a merged conflict), after they went in: the live image's drafts learn what the
   * server holds of those shapes, so a draft that ends puts back the saved shape, not an older one.
   */
  onServerChange(listener: (change: ServerChange) => void): () => void {
    this.serverListeners.add(listener);
    return () => this.serverListeners.delete(listener);
  }

  /** The ids of shapes shown as other people's drafts (the live image says): a change of the whole document leaves them out of its save. */
  showsDrafts(ids: () => Iterable<string>): () => void {
    this.othersDrafts = ids;
    return () => {
      if (this.othersDrafts === ids) this.othersDrafts = () => [];
    };
  }

  /** The shapes of `ids` as the editor holds them now (stored format); the ids it holds no shape of are `removed`. */
  storedOf(ids: Iterable<string>): { upserts: StoredAnnotation[]; removed: string[] } {
    const upserts: StoredAnnotation[] = [];
    const removed: string[] = [];
    for (const id of ids) {
      const a = this.editor.getAnnotation(id);
      if (a) upserts.push(editorToStored(a));
      else removed.push(id);
    }
    return { upserts, removed };
  }

  private tellEdit(ids: Iterable<string>): void {
    if (!this.editListeners.size) return;
    const list = [...ids];
    for (const l of [...this.editListeners]) l(list);
  }

  /** The image whose changes are saved; null while one loads. */
  get image(): ImageRef | null {
    return this.ref;
  }

  /**
   * Replaces the document without counting it as the user's change (opening, recovery, discard),
   * validating and building it in slices (Editor.loadStoredAsync). False when a later load or
   * Editor.cancelLoad() abandoned it; rejects on invalid annotations.
   */
  async load(annotations: unknown, options?: LoadOptions): Promise<boolean> {
    this.loading++;
    try {
      return await this.editor.loadStoredAsync(annotations, options);
    } finally {
      this.loading--;
    }
  }

  /**
   * The screen starts opening this image: a merge for it that lands before attach() (the save
   * manager saving work it recovered while the document loads) is kept and applied then.
   */
  expect(imageId: string): void {
    this.expected = imageId;
    this.early = [];
  }

  /** From now on the editor's changes are the user's, saved for this image. */
  attach(ref: ImageRef): void {
    this.ref = ref;
    const early = this.expected === ref.imageId ? this.early : [];
    this.expected = null;
    this.early = [];
    for (const apply of early) apply();
  }

  /** The screen leaves the image: what is gathered goes to the manager now, which saves it after. */
  detach(imageId: string): void {
    if (this.expected === imageId) {
      this.expected = null;
      this.early = [];
    }
    if (this.ref?.imageId !== imageId) return;
    this.flush();
    this.saver.close(imageId);
    this.ref = null;
  }

  /** Hands the gathered changes to the save manager (deletions are saved at once, spec section 4). Only the changed shapes are read from the editor. */
  flush(immediate = false): void {
    this.cancelTimer();
    const ref = this.ref;
    const ids = this.changed;
    const replace = this.replaced;
    this.changed = new Set();
    this.replaced = false;
    this.opts.onGathering?.(false);
    if (!ref || (ids.size === 0 && !replace)) return;
    const { upserts, removed } = this.storedOf(ids);
    this.saver.change(ref.imageId, { upserts, removed }, replace ? { immediate: true, replace } : { immediate: immediate || removed.length > 0 });
  }

  /**
   * Another client's saved change (live co-editing): the save manager's copy of the server
   * document moves on, then the live document takes it through Editor.applyRemote, as a merge,
   * never a reload. Shapes this device changed and has not saved (pending, or still gathering)
   * keep their local shape: they are newer and their save follows on the new version.
   */
  applyRemoteChange(imageId: string, change: RemoteChange): RemoteOutcome {
    if (this.ref?.imageId !== imageId) return { kind: 'closed' };
    const outcome = this.saver.remote(imageId, change);
    if (outcome.kind === 'known') this.tellOverlap(change, outcome.overwritten, new Set(), []);
    if (outcome.kind !== 'applied') return outcome;
    const keep = new Set([...outcome.local, ...this.changed]);
    this.applyToEditor(change.upserts, change.removed_ids, keep);
    this.tellOverlap(change, outcome.overwritten, keep, outcome.theirsWon);
    return outcome;
  }

  /**
   * Tells onOverlap when the change replaced recent edits of the user, dropped unsaved ones it was
   * later than (`theirsWon`; not those still gathering, which stay), or met later ones not saved yet (`mine`).
   */
  private tellOverlap(change: RemoteChange, overwritten: string[], mine: ReadonlySet<string>, theirsWon: readonly string[]): void {
    const kept = mine.size ? [...change.upserts.map((a) => a.id), ...change.removed_ids].filter((id) => mine.has(id)) : [];
    const dropped = theirsWon.filter((id) => !mine.has(id));
    const lost = [...new Set([...overwritten, ...dropped])];
    if (lost.length || kept.length) this.opts.onOverlap?.({ by: change.by ?? null, since: change.base_version, version: change.version, overwritten: lost, theirsWon: dropped, kept: [...new Set(kept)] });
  }

  /**
   * Another person's merge dropped their edit of `ids` because the shape the server held was
   * later (their save met a 409; live `overlap`): those of them this tab saved in the last minutes
   * (RECENT_EDIT_MS) are the user's edits that won. Empty when none are, or another image is open.
   */
  outlasted(imageId: string, ids: readonly string[]): string[] {
    return this.ref?.imageId === imageId ? this.saver.recentEdits(imageId, ids) : [];
  }

  /** Shapes saved elsewhere into the live document (a view-only editor, which has no save slot): Editor.applyRemote, each shape validated. */
  applyToEditor(stored: readonly StoredAnnotation[], removedIds: readonly string[], mine: ReadonlySet<string>): void {
    const upserts: EditorAnnotation[] = [];
    for (const a of stored) {
      if (mine.has(a.id)) continue;
      try {
        upserts.push(...parseStoredAnnotations([a]));
      } catch (err) {
        this.log(`The annotation ${a.id} saved elsewhere is not valid and was left out of the editor`, err);
      }
    }
    const removed = removedIds.filter((id) => !mine.has(id));
    this.quietly(() => this.editor.applyRemote(upserts, removed));
  }

  /** A rebased save's skipped versions (already in the manager's copy): into the live document like a remote change. */
  private applyAbsorbed(imageId: string, absorbed: AbsorbedChange): void {
    if (this.ref?.imageId !== imageId) {
      if (!this.ref && this.expected === imageId) this.early.push(() => this.applyAbsorbed(imageId, absorbed));
      return;
    }
    const keep = new Set([...absorbed.local, ...this.changed]);
    this.applyToEditor(absorbed.change.upserts, absorbed.change.removed_ids, keep);
    this.tellServerChange(absorbed.change.upserts, absorbed.change.removed_ids);
    this.tellOverlap(absorbed.change, [], keep, absorbed.theirsWon);
  }

  private applyMerge(imageId: string, merge: MergeResult): void {
    if (this.ref?.imageId !== imageId) {
      if (!this.ref && this.expected === imageId) this.early.push(() => this.applyMerge(imageId, merge));
      return;
    }
    // Gathered shapes were changed after everything the merge knows: they stay as they are here
    // and reach the manager with the next delta (a reload would save a new shape as removed).
    this.applyToEditor(merge.changes.upserts, merge.changes.removed, this.changed);
    this.tellServerChange(merge.changes.upserts, merge.changes.removed);
    this.opts.onMerged?.(merge);
  }

  private tellServerChange(upserts: readonly StoredAnnotation[], removed: readonly string[]): void {
    for (const l of [...this.serverListeners]) l({ upserts, removed_ids: removed });
  }

  private readonly editListeners = new Set<(ids: readonly string[]) => void>();
  private readonly serverListeners = new Set<(change: ServerChange) => void>();
  private othersDrafts: () => Iterable<string> = () => [];
  /** Loads in progress: their document changes are not the user's. */
  private loading = 0;
  private expected: string | null = null;
  /** Merges and absorbed changes for the image being opened, applied once it is attached. */
  private early: (() => void)[] = [];

  private quietly(fn: () => void): void {
    this.quiet = true;
    try {
      fn();
    } finally {
      this.quiet = false;
    }
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
  }
}
