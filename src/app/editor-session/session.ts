// One open project's editor session (issue 31 §2), framework-free: the Editor, the save link
// between it and the app's save manager, the tab's live client and Auto-Annotate's server side,
// and what joins them: usage records for created shapes, an accepted mask becoming an annotation,
// the toasts of merges and overlaps and the engine's short messages, the keepalive flush when the
// page is hidden, the History's preview and restore (./history.ts), Discard of recovered work,
// and the commands on the document (undo, redo, copy, paste, hide, the Alt+arrow walk of the shapes, Copy Previous,
// Remove All; while an earlier version is shown, those that look act on it and those that edit
// are refused with a word why), and what the member's role allows (./access.ts: a role without
// annotations.write gets a read-only editor and commands). The editor screen creates one
// (pages/annotate/hooks/useEditorSession.ts), starts it while it is shown, and reads it.
import type { Image } from '../../contract/images';
import type { GetMaskResponse } from '../../contract/segmentation';
import { Editor, storedToEditor, type EditorAnnotation, type ProposalAccepted } from '../../engine';
import { editorApi, type LoadedAnnotations } from '../api/annotations/editorApi';
import { loadAnnotations } from '../api/annotations/preload';
import { serverMessage } from '../api/client';
import { getLiveClient, type LiveClient } from '../sync/live';
import { EditorSaveLink, getSaveManager, type MergeResult, type Overlap, type SaveManager } from '../sync/save';
import { outlastedMessage, overlapAuthor, overlapMessages } from '../sync/save/overlap';
import { toast, type ToastTone } from '../stores/toast';
import { RoleAccess, type RoleSource } from './access';
import { AutoAnnotateSession, type SegmentationApi } from './autoAnnotate';
import { copyShapes, takePaste } from './clipboard';
import { PREVIEW_REASON, VersionHistory, type VersionsApi } from './history';
import { nextInList } from './listOrder';
import { recordCreated } from './usage';

/** How long the toasts about another person's change stay (as the 409 merge's). */
const OVERLAP_TOAST_MS = 6000;
/** As long as the screen's other short messages. */
export const MESSAGE_MS = 2000;

export type Tell = (message: string, tone: ToastTone, ms: number) => void;

export interface EditorSessionOptions {
  projectId: string;
  orgId: string;
  /** The member's role in the project's organization, followed (src/app/stores/permissions.ts `memberRole`). */
  role: RoleSource;
  /** The app's save manager by default (getSaveManager). */
  saver?: SaveManager;
  /** The tab's live client by default (getLiveClient). */
  live?: LiveClient;
  /** Auto-Annotate's server calls (editorApi's by default). */
  segmentation?: SegmentationApi;
  /** The saved annotations of an image, its versions and restore (editorApi's by default). */
  annotations?: AnnotationsApi;
  /** Short messages for the user (the app's toasts by default). */
  tell?: Tell;
  /** Usage records for created shapes (recordCreated by default). */
  recordCreated?: typeof recordCreated;
  /** The editor itself (a new one by default). */
  editor?: Editor;
  /** The save link's timers (the page's by default; tests pass a fake clock's). */
  timers?: { setTimer: (fn: () => void, ms: number) => unknown; clearTimer: (handle: unknown) => void };
}

/** The annotation calls the session makes beside saving. */
export interface AnnotationsApi extends VersionsApi {
  /** An image's saved annotations (Copy Previous, the reload after a Discard). */
  load(image: Image, projectId: string): Promise<LoadedAnnotations>;
}

const annotationsApi: AnnotationsApi = {
  load: loadAnnotations,
  loadVersion: (imageId, projectId, version, options) => editorApi.loadVersion(imageId, projectId, version, options),
  restore: (imageId, projectId, version, base) => editorApi.restore(imageId, projectId, version, base),
};

function segmentationOf(orgId: string, projectId: string): SegmentationApi {
  return {
    warmup: () => editorApi.segWarmup(orgId),
    health: () => editorApi.segHealth(orgId),
    process: (name) => editorApi.segProcess(projectId, name),
    mask: (name, prompt, prev, signal, tolerance) => editorApi.segMask(projectId, name, prompt, prev, signal, tolerance),
  };
}

function newId(): string {
  return typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now().toString(16)}-${Math.random().toString(16).slice(2)}`;
}

export class EditorSession {
  readonly projectId: string;
  readonly orgId: string;
  readonly editor: Editor;
  readonly saver: SaveManager;
  readonly live: LiveClient;
  readonly auto: AutoAnnotateSession;
  /** Between the editor and the save manager: deltas out, merges and others' changes back in. */
  readonly link: EditorSaveLink;
  /** The History: an earlier version looked at, and restored. */
  readonly history: VersionHistory;
  /** What the member's role allows here (read only, and why), as it changes. */
  readonly access: RoleAccess;
  /**
   * The open image's document is in the editor (set as the screen renders, so it turns false the
   * moment another image is asked for): until then keys that act on the document wait, and so
   * does showing a version.
   */
  documentReady = false;
  private readonly api: AnnotationsApi;
  private readonly tell: Tell;
  private readonly record: typeof recordCreated;
  private gathering = false;
  private readonly gatheringListeners = new Set<() => void>();
  private copyingPrevious = false;
  private readonly copyingListeners = new Set<() => void>();

  constructor(opts: EditorSessionOptions) {
    this.projectId = opts.projectId;
    this.orgId = opts.orgId;
    this.editor = opts.editor ?? new Editor();
    this.saver = opts.saver ?? getSaveManager();
    this.live = opts.live ?? getLiveClient();
    this.tell = opts.tell ?? toast;
    this.record = opts.recordCreated ?? recordCreated;
    this.api = opts.annotations ?? annotationsApi;
    this.access = new RoleAccess(opts.role);
    this.auto = new AutoAnnotateSession(opts.segmentation ?? segmentationOf(opts.orgId, opts.projectId));
    this.link = new EditorSaveLink(this.editor, this.saver, {
      ...opts.timers,
      onGathering: (on) => this.setGathering(on),
      onMerged: (merge) => this.merged(merge),
      onOverlap: (o) => {
        const image = this.link.image;
        if (!image) return;
        // The other side's later edit won over unsaved work here, as after a 409 merge: only this tells its author.
        if (o.theirsWon.length) this.live.sendOverlap(image.imageId, o.theirsWon);
        void this.tellOverlap(image.imageId, image.projectId, o);
      },
    });
    this.history = new VersionHistory({ editor: this.editor, link: this.link, saver: this.saver, projectId: this.projectId, api: this.api, tell: this.tell });
  }

  /**
   * Joins the parts while the screen shows the session; returns the function that parts them.
   * Every listener is in place when this returns, before the user can create anything.
   */
  start(): () => void {
    const { editor, live, link, saver } = this;
    const offs = [
      link.start(),
      this.history.start(),
      // The engine's Auto-Annotate tool asks this session's server for masks.
      (editor.auto.setSegmenter(this.auto.segmenter()), () => editor.auto.setSegmenter(null)),
      // Usage records for shapes created on the image the editor holds (spec section 7), and the
      // engine's short messages: a paste (Copy Previous too), a box too small, a hole that would
      // split its polygon.
      editor.onEvent((e) => {
        if (e.type === 'created') this.recordUsage([e.id]);
        else if (e.type === 'pasted' && e.count > 0) {
          this.recordUsage(e.ids);
          this.tell(`Pasted ${e.count} annotation(s)`, 'neutral', MESSAGE_MS);
        } else if (e.type === 'too-small') this.tell('Boxes must be at least 10 × 10 pixels', 'neutral', MESSAGE_MS);
        else if (e.type === 'invalid-hole') this.tell('That hole would split the polygon; draw it inside the shape', 'danger', 4000);
      }),
      editor.auto.onAccepted((e) => this.acceptMask(e)),
      // Another person's merge dropped their edit of shapes this tab saved recently: the user's won.
      live.onPeerOverlap((imageId, o) => {
        const mine = link.outlasted(imageId, o.ids);
        if (mine.length) this.tell(outlastedMessage(mine.length, o.name), 'neutral', OVERLAP_TOAST_MS);
      }),
      this.onPageHide(() => {
        link.flush();
        saver.flushOnPageHide();
      }),
    ];
    return () => {
      for (const off of offs.reverse()) off();
    };
  }

  dispose(): void {
    this.auto.dispose();
  }

  /**
   * The editor follows the member's role: read only (the engine refuses edits) while the role lacks
   * annotations.write, from now until the function returned is called. The commands read the role
   * themselves.
   */
  followRole(): () => void {
    const apply = () => this.editor.setReadOnly(this.readOnly);
    apply();
    return this.access.subscribe(apply);
  }

  /** A role without annotations.write: the commands that edit do nothing. */
  private get readOnly(): boolean {
    return this.access.get().readOnly;
  }

  /**
   * Discard on the restored-work notice: the work this device kept for `image` is dropped (never
   * sent; what of it already reached the server is undone), and the saved annotations are loaded
   * again. `dropped` runs once the work is gone (the notice goes).
   */
  async discardRecovered(image: Image, dropped: () => void = () => undefined): Promise<void> {
    await this.saver.discard(image.id);
    dropped();
    try {
      const data = await this.api.load(image, this.projectId);
      if (!(await this.link.load(data.annotations, { historyKey: image.id }))) return;
      await this.saver.open({ imageId: image.id, projectId: this.projectId, imageFilename: image.filename }, data);
    } catch (err) {
      this.tell(serverMessage(err, 'Failed to reload the saved annotations'), 'danger', 5000);
    }
  }

  /** True while changes wait in the link's short gathering window: the top bar must not say 'Saved' then. */
  isGathering = (): boolean => this.gathering;

  subscribeGathering = (listener: () => void): (() => void) => {
    this.gatheringListeners.add(listener);
    return () => this.gatheringListeners.delete(listener);
  };

  /** Usage records for shapes created on the image the editor holds (spec section 7). */
  recordUsage(ids: Iterable<string>): void {
    const held = this.link.image;
    if (held) void this.record({ orgId: this.orgId, projectId: held.projectId, imageId: held.imageId }, [...ids].map((id) => this.editor.getAnnotation(id)));
  }

  // ---------------------------------------------------------------- commands

  /** The editor the user looks at: the earlier version's while one is shown, else the document's. */
  viewed(): Editor {
    return this.history.isPreviewing() ? this.history.previewEditor : this.editor;
  }

  /** While an earlier version is shown an edit does nothing but say why; true then. */
  refusedWhilePreviewing(): boolean {
    if (!this.history.isPreviewing()) return false;
    this.tell(`Viewing an earlier version. ${PREVIEW_REASON}.`, 'neutral', MESSAGE_MS);
    return true;
  }

  undo(): void {
    if (!this.refusedWhilePreviewing()) void this.editor.undo();
  }

  redo(): void {
    if (!this.refusedWhilePreviewing()) void this.editor.redo();
  }

  selectAll(): void {
    this.viewed().selectAll();
  }

  /** H: hides the selection, or every shape (shows them again) when none is selected. */
  hide(): void {
    const on = this.viewed();
    if (on.getView().selected.size > 0) on.hideSelected();
    else on.toggleAll();
  }

  hideSelection(): void {
    this.viewed().hideSelected();
  }

  /**
   * Alt+Down / Alt+Up: selects the shape after (before) the selection in the annotation list's order;
   * false past the end. While a model's predictions are pending and shown, the next (previous) one
   * of them instead, centred (issue 34), wrapping around.
   */
  selectNext(step: 1 | -1): boolean {
    const on = this.viewed();
    const view = on.getView();
    if (view.drawing) return false;
    if (on.predictions.counts().shown > 0) return on.predictions.step(step) !== null;
    const listOrder = [...on.paintOrder()].reverse();
    const id = nextInList(listOrder, view.selected, view.hidden, step);
    if (!id) return false;
    on.select([id]);
    on.bringIntoView(id);
    return true;
  }

  /** Copies the selection of the editor looked at (an earlier version's too) for pasting on any image. */
  copy(imageId: string): void {
    const shapes = this.viewed().copy();
    if (shapes.length === 0) return;
    copyShapes(shapes, imageId);
    this.tell(`Copied ${shapes.length} annotation(s)`, 'neutral', MESSAGE_MS);
  }

  /** Pastes what was copied, each paste of the same copy on this image a step further. */
  paste(imageId: string): void {
    if (this.refusedWhilePreviewing() || this.readOnly) return;
    const clip = takePaste(imageId);
    if (clip) this.editor.paste(clip.shapes, clip.offset);
  }

  /** True while Copy Previous waits for the previous image's annotations. */
  isCopyingPrevious = (): boolean => this.copyingPrevious;

  subscribeCopyingPrevious = (listener: () => void): (() => void) => {
    this.copyingListeners.add(listener);
    return () => this.copyingListeners.delete(listener);
  };

  /** Copy Previous: the previous image's saved annotations pasted in place (one undo step). */
  async copyPrevious(previous: Image, imageId: string): Promise<void> {
    if (this.copyingPrevious || this.readOnly || this.history.isPreviewing()) return;
    this.setCopyingPrevious(true);
    try {
      const { annotations } = await this.api.load(previous, this.projectId);
      if (this.link.image?.imageId !== imageId) return;
      if (annotations.length === 0) return this.tell('The previous image has no annotations', 'neutral', MESSAGE_MS);
      this.editor.paste(annotations.map(storedToEditor), 0);
    } catch (err) {
      this.tell(serverMessage(err, 'Failed to copy the previous annotations. Please try again.'), 'danger', 5000);
    } finally {
      this.setCopyingPrevious(false);
    }
  }

  /** Remove All (one undo step); the number of shapes removed. `announce`: false when the caller says it (with its own Undo). */
  removeAll(announce = true): number {
    if (this.readOnly || this.history.isPreviewing()) return 0;
    const ids = this.editor.getOrderedIds();
    if (ids.length === 0) return 0;
    this.editor.execute('delete', { ids: [...ids] });
    if (announce) this.tell(`Removed ${ids.length} annotation(s). Undo with Ctrl+Z`, 'neutral', 4000);
    return ids.length;
  }

  /**
   * An accepted Auto-Annotate mask (Enter, or Complete: the engine tool asks for a class when none
   * is active) becomes a segmentation annotation of that class, or polygons snapped to its edge
   * (one undo step), saved through the same pipeline as every other edit.
   */
  private acceptMask(e: ProposalAccepted): void {
    const { editor } = this;
    const mask = e.proposal.data as GetMaskResponse;
    const [x, y, width, height] = mask.bbox;
    const id = newId();
    const extra = { score: mask.score, sam2_area: mask.area, point_count: e.pointCount, inference_time: mask.inference_time, tool_used: `auto-annotate:${mask.backend}` };
    try {
      if (this.auto.getState().output.kind === 'polygon') {
        // Snapped to polygons (the answer's, simplified at the chosen tolerance): one per part of the mask, one undo step.
        const parts: EditorAnnotation[] = mask.vellum_annotations
          .filter((a) => a.polygon.path.length >= 3)
          .map((a, i) => {
            const holes = a.polygon.holes.filter((h) => h.length >= 3);
            return { id: `${id}-${i}`, type: 'polygon' as const, class: e.class, points: a.polygon.path, ...(holes.length ? { holes } : {}), extra };
          });
        if (parts.length === 0) return;
        const ids = editor.execute('paste', { annotations: parts, offset: 0 });
        editor.select(ids);
        this.recordUsage(ids);
        return;
      }
      editor.execute('create', { annotation: { id, type: 'segmentation', class: e.class, x, y, width, height, rle: mask.mask, extra } });
      editor.select([id]);
      this.recordUsage([id]);
    } catch (err) {
      console.error('Error saving the mask:', err);
      this.tell('The mask could not be added. Please try again.', 'danger', 5000);
    }
  }

  private setCopyingPrevious(on: boolean): void {
    this.copyingPrevious = on;
    for (const l of [...this.copyingListeners]) l();
  }

  // ---------------------------------------------------------------- saving's messages

  private setGathering(on: boolean): void {
    if (on === this.gathering) return;
    this.gathering = on;
    for (const l of [...this.gatheringListeners]) l();
  }

  private merged(merge: MergeResult): void {
    this.tell(
      merge.conflicts.length
        ? `Conflict merged: someone else saved this image too. ${merge.conflicts.length} annotation(s) changed on both sides kept the later edit.`
        : 'Conflict merged: changes saved from elsewhere were kept with yours.',
      'neutral',
      OVERLAP_TOAST_MS,
    );
    // The other side's later edit won: this change of them is never saved, so only this says so.
    const image = this.link.image;
    if (image && merge.theirsWon.length) this.live.sendOverlap(image.imageId, merge.theirsWon);
  }

  /** Tells the user about an overlap, naming the other person from the image's latest history entries. */
  private async tellOverlap(imageId: string, projectId: string, o: Overlap): Promise<void> {
    const me = this.live.userId;
    if (o.by !== null && o.by === me) return; // this user's other tab
    let who: string | null = null;
    try {
      who = overlapAuthor(o, (await editorApi.history(imageId, projectId, { limit: 20 })).entries, me);
    } catch {
      // Not named: 'Someone else'.
    }
    for (const message of overlapMessages(o, who)) this.tell(message, 'neutral', OVERLAP_TOAST_MS);
  }

  private onPageHide(fn: () => void): () => void {
    if (typeof window === 'undefined' || typeof document === 'undefined') return () => undefined;
    const onVisibility = () => document.visibilityState === 'hidden' && fn();
    window.addEventListener('pagehide', fn);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.removeEventListener('pagehide', fn);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }
}
