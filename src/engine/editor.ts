// The facade the SPA uses: document + history + view state + camera + tools + hit-testing.
// No DOM: the SPA forwards pointer/key/wheel events with canvas-relative screen coordinates.
import { sameJson } from '../contract/json';
import { Immer, enablePatches, type Patch } from 'immer';
import { commands, type CommandName, type CommandPayload, type CommandResult } from './commands';
import type { AttributesPolicy, Command } from './commands/types';
import {
  bringIntoView as cameraBringIntoView,
  clampScale,
  fitToScreen as cameraFit,
  imageToScreen,
  PAN_STEP,
  panBy as cameraPanBy,
  screenToImage,
  zoomAt as cameraZoomAt,
  ZOOM_IN,
  ZOOM_OUT,
  type CameraState,
  type Size,
} from './camera';
import type { EditorEvent } from './events';
import { adaptStacks, History, HistoryShelf, patchId, splittable } from './history';
import { nextTask } from './tasks';
import { duplicateIdError, parseStoredAnnotationAt, parseStoredAnnotations, validateEditorAnnotation } from './model/convert';
import {
  applyDocPatches,
  changedIds,
  DocBuilder,
  docFromAnnotations,
  DocTx,
  emptyDoc,
  getAnnotation,
  getZ,
  OrderIndex,
  type ChangedIds,
  type DocState,
} from './model/document';
import { annotationBounds, boundsContains, hitAnnotation, KEYPOINT_HIT_SCALE, type Bounds } from './model/geometry';
import type { EditorAnnotation, EditorDocumentJSON, Rect, VertexRef } from './model/types';
import { SpatialIndex } from './spatial';
import { createTools, type AutoTool } from './tools';
import type { ProposalAccepted, Segmenter } from './tools/auto/types';
import { hitRadius, type Modifiers, type Tool, type ToolApi, type ToolPointerEvent } from './tools/types';
import { initialView, type DrawingPreview, type ToolId, type ViewState } from './view';

enablePatches();
// A private instance: no auto-freeze (freezing walks every new object, too slow at 100k
// shapes; the types are readonly instead), and global immer settings stay untouched.
const immer = new Immer({ autoFreeze: false });

/** UUID v4. crypto.randomUUID only exists in secure contexts (an http LAN address is not one). */
function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const PASTE_OFFSET = 20;
export const NUDGE = 1;
export const NUDGE_SHIFT = 10;

/** A change notification: which annotation ids changed, and whether view or camera did. */
export interface EditorChange {
  readonly document: ChangedIds | null;
  readonly view: boolean;
  readonly camera: boolean;
}

/** Pointer input in canvas CSS pixels (e.g. event.offsetX/offsetY). */
export interface ScreenPointerInput extends Modifiers {
  readonly x: number;
  readonly y: number;
  /** 0 primary, 1 middle, 2 secondary (PointerEvent.button). */
  readonly button?: number;
}

export interface KeyInput extends Modifiers {
  readonly key: string;
}

export interface WheelInput {
  readonly x: number;
  readonly y: number;
  readonly deltaY: number;
}

/** How loadAsync / loadStoredAsync spread their work. */
export interface LoadOptions {
  /** Main-thread time per task before yielding to the event loop (default 8 ms). */
  budgetMs?: number;
  /** After each slice and at the end: annotations done of the total (for a progress bar). */
  onProgress?: (done: number, total: number) => void;
  /**
   * The document's key (an image id): the undo history of the document it replaces is shelved
   * under that one's key, and this key's shelved history, if any, comes back (see HistoryShelf).
   */
  historyKey?: string;
}

/** A mutating call on a read-only editor (see setReadOnly): a bug in the caller, never user input. */
export class ReadOnlyError extends Error {
  constructor(what: string) {
    super(`The editor is read-only: ${what} refused`);
    this.name = 'ReadOnlyError';
  }
}

export interface EditorOptions {
  /** Fresh ids for new shapes; defaults to crypto.randomUUID. */
  idGenerator?: () => string;
  viewport?: Size;
  image?: Size;
}

export class Editor {
  private doc: DocState = emptyDoc();
  private readonly history = new History();
  /** Histories of documents shown earlier in the session, by key; `historyKey` is the live document's. */
  private readonly shelf = new HistoryShelf();
  private historyKey: string | null = null;
  private inputPaused = false;
  private readonly order = new OrderIndex();
  private readonly index: SpatialIndex;
  private view: ViewState = initialView();
  private camera: CameraState = { x: 0, y: 0, scale: 1 };
  private viewport: Size = { width: 0, height: 0 };
  private image: Size | null = null;
  private readonly tools: Record<ToolId, Tool>;
  private readonly listeners = new Set<(c: EditorChange) => void>();
  private readonly eventListeners = new Set<(e: EditorEvent) => void>();
  private readonly proposalListeners = new Set<(e: ProposalAccepted) => void>();
  private segmenter: Segmenter | null = null;
  private attributesFor: AttributesPolicy | undefined;
  private readonly newId: () => string;
  private clipboard: EditorAnnotation[] = [];
  private pasteCount = 0;
  private spaceDown = false;
  private panning: { sx: number; sy: number } | null = null;
  private docVersion = 0;
  private loadToken = 0;

  constructor(options: EditorOptions = {}) {
    this.newId = options.idGenerator ?? uuid;
    this.index = new SpatialIndex(() => this.doc);
    this.order.reset(this.doc);
    if (options.viewport) this.viewport = options.viewport;
    if (options.image) this.image = options.image;
    this.tools = createTools(this.toolApi());
  }

  // ---------------------------------------------------------------- subscriptions

  /** Called after every change; returns an unsubscribe function. */
  subscribe(listener: (c: EditorChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Discrete events: 'needs-class', 'too-small', 'invalid-hole', 'created', 'copied', 'pasted'. */
  onEvent(listener: (e: EditorEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Auto-Annotate's mask was accepted (Enter or acceptProposal): make it an annotation. */
  onProposalAccepted(listener: (e: ProposalAccepted) => void): () => void {
    this.proposalListeners.add(listener);
    return () => this.proposalListeners.delete(listener);
  }

  private notify(c: Partial<EditorChange>): void {
    const change: EditorChange = { document: c.document ?? null, view: c.view ?? false, camera: c.camera ?? false };
    for (const l of [...this.listeners]) l(change);
  }

  private emit(e: EditorEvent): void {
    for (const l of [...this.eventListeners]) l(e);
  }

  // ---------------------------------------------------------------- document

  /**
   * Replaces the document without history (opening an image). Clears selection, hidden ids and
   * history. The editor takes ownership of the annotation objects (no copy, it matters at 100k):
   * callers must not mutate them afterwards.
   */
  load(doc: EditorDocumentJSON | readonly EditorAnnotation[]): void {
    const list = Array.isArray(doc) ? (doc as readonly EditorAnnotation[]) : (doc as EditorDocumentJSON).annotations;
    this.loadToken++;
    this.install(docFromAnnotations(list));
  }

  /**
   * load() spread over tasks of about `budgetMs` each (yielding to the event loop between them),
   * so opening a 100k-shape image never blocks the main thread for long. The document changes
   * only at the end, in one step. A later load()/loadAsync()/loadStoredAsync(), or cancelLoad(),
   * abandons this one: it then resolves to false without loading. Rejects on invalid input
   * (duplicate ids) like load() throws.
   */
  async loadAsync(doc: EditorDocumentJSON | readonly EditorAnnotation[], options: number | LoadOptions = {}): Promise<boolean> {
    const list = Array.isArray(doc) ? (doc as readonly EditorAnnotation[]) : (doc as EditorDocumentJSON).annotations;
    return this.loadInSlices(list.length, (i) => list[i]!, 64, options);
  }

  /**
   * loadStored() in slices: each stored annotation is validated (zod), converted and added in
   * the same pass, so neither the check nor the build is one long task (about 20 us per shape:
   * 2 s for 100k in one go). Same rules as loadAsync; rejects with a ZodError on invalid input
   * (issue paths start with the annotation's index), and then leaves the document as it was.
   */
  async loadStoredAsync(json: unknown, options: LoadOptions = {}): Promise<boolean> {
    if (!Array.isArray(json)) {
      this.loadStored(json); // not a list: throws loadStored's ZodError
      return true;
    }
    const list = json as readonly unknown[];
    return this.loadInSlices(
      list.length,
      (i, building) => {
        const a = parseStoredAnnotationAt(list[i], i);
        if (building.has(a.id)) throw duplicateIdError(a.id, i);
        return a;
      },
      16,
      options,
    );
  }

  /** Abandons a loadAsync() / loadStoredAsync() in progress (the document stays as it is). */
  cancelLoad(): void {
    this.loadToken++;
  }

  private async loadInSlices(total: number, item: (i: number, building: DocBuilder) => EditorAnnotation, checkEvery: number, options: number | LoadOptions): Promise<boolean> {
    const { budgetMs = 8, onProgress, historyKey } = typeof options === 'number' ? { budgetMs: options } : options;
    const token = ++this.loadToken;
    const builder = new DocBuilder();
    let t0 = performance.now();
    for (let i = 0; i < total; i++) {
      if (i % checkEvery === 0 && performance.now() - t0 > budgetMs) {
        onProgress?.(i, total);
        await nextTask();
        if (token !== this.loadToken) return false;
        t0 = performance.now();
      }
      builder.add(item(i, builder));
    }
    const r = builder.finish();
    this.order.adopt(r.ids, r.zOf);
    this.install(r.doc, true, historyKey);
    onProgress?.(total, total);
    return true;
  }

  private install(doc: DocState, orderReady = false, historyKey?: string): void {
    this.activeTool().cancel();
    this.shelveHistory();
    this.doc = doc;
    this.history.clear();
    this.historyKey = historyKey ?? null;
    if (historyKey !== undefined) this.unshelveHistory(historyKey);
    this.view = { ...this.view, selected: new Set(), hidden: new Set(), hovered: null, selectedVertex: null, drawing: null, marquee: null };
    this.afterDocChange({ all: true }, true, orderReady);
  }

  /** Puts the live document's history on the shelf under its key, with the shapes it touches as they are now. */
  private shelveHistory(): void {
    if (this.history.inGesture) this.applyPatches(this.history.cancel());
    const key = this.historyKey;
    if (key === null) return;
    const stacks = this.history.snapshot();
    if (!splittable(stacks)) {
      // An entry that replaced whole tables cannot be checked shape by shape: not kept.
      this.shelf.take(key);
      return;
    }
    const touched = new Map<string, unknown>();
    for (const e of [...stacks.undo, ...stacks.redo]) {
      for (const p of e.patches) {
        const id = patchId(p);
        if (id !== null && !touched.has(id)) touched.set(id, getAnnotation(this.doc, id));
      }
    }
    this.shelf.put(key, { ...stacks, touched });
  }

  /**
   * Brings back the history shelved under `key` for the document just installed: shapes that are
   * no longer as the history left them (changed elsewhere meanwhile) are forgotten by it, and its
   * z values follow this copy's paint order (a shape it would put back goes on top).
   */
  private unshelveHistory(key: string): void {
    const shelved = this.shelf.take(key);
    if (!shelved) return;
    const drop = new Set<string>();
    for (const [id, then] of shelved.touched) if (!sameJson(then, getAnnotation(this.doc, id))) drop.add(id);
    const fresh = new Map<string, number>();
    let nextZ = this.doc.nextZ;
    this.history.restore(
      adaptStacks(shelved, drop, (id) => {
        const z = getZ(this.doc, id) ?? fresh.get(id);
        if (z !== undefined) return z;
        fresh.set(id, nextZ);
        return nextZ++;
      }),
    );
  }

  /** The key the live document was loaded with (LoadOptions.historyKey: an image id), or null. */
  get documentKey(): string | null {
    return this.historyKey;
  }

  /** Keys of the histories kept for documents not shown now (least recently left first). */
  shelvedHistoryKeys(): string[] {
    return this.shelf.keys();
  }

  /** Validates stored annotations (load-data's `annotations`) and loads them. Throws on invalid input. */
  loadStored(json: unknown): void {
    this.load(parseStoredAnnotations(json));
  }

  /** The serialisable document, annotations bottom (oldest) first. */
  getDocument(): EditorDocumentJSON {
    return { annotations: this.getAnnotations() };
  }

  getAnnotations(): EditorAnnotation[] {
    return this.order.ordered().map((id) => getAnnotation(this.doc, id)!);
  }

  getAnnotation(id: string): EditorAnnotation | undefined {
    return getAnnotation(this.doc, id);
  }

  /** Ids in paint order, bottom first (the sidebar lists them reversed: newest first). */
  getOrderedIds(): readonly string[] {
    return this.order.ordered().slice();
  }

  /**
   * Paint order like getOrderedIds() but without the copy: the engine's own array, read-only and
   * current only until the next document change. For views that read a few entries per render
   * (a virtual list of 100k rows); anything that keeps the list across changes takes a copy.
   */
  paintOrder(): readonly string[] {
    return this.order.ordered();
  }

  /** Paint-order key of an annotation (larger is drawn later, on top); undefined if absent. */
  getZ(id: string): number | undefined {
    return this.order.zIndex(id);
  }

  get annotationCount(): number {
    return this.doc.count;
  }

  /** Increments on every document change (handy as a React external-store snapshot). */
  get documentVersion(): number {
    return this.docVersion;
  }

  /** Runs a command as its own undo entry (or inside an open gesture). Throws ReadOnlyError when read-only. */
  execute<N extends CommandName>(name: N, payload: CommandPayload<N>): CommandResult<N> {
    if (this.view.readOnly) throw new ReadOnlyError(`command '${name}'`);
    const cmd = commands[name] as unknown as Command<CommandPayload<N>, CommandResult<N>>;
    const label = cmd.label(payload, this.doc);
    let result!: CommandResult<N>;
    const base = this.doc;
    const env = { newId: this.newId, attributesFor: this.attributesFor };
    const [next, patches, inverse] = immer.produceWithPatches(base, (draft) => {
      result = cmd.run(new DocTx(draft, base), payload, env);
    });
    if (patches.length === 0) return result;
    this.doc = next;
    this.history.record(label, patches, inverse);
    this.afterDocChange(changedIds(patches));
    return result;
  }

  /**
   * Applies changes made elsewhere (a conflict the save manager merged) to the live document,
   * outside history: the selection (less removed shapes), hidden shapes and a drag or drawing in
   * progress stay. Undo entries forget the shapes touched here, so undo never puts back what the
   * other side changed. New shapes go on top. Throws on an invalid shape, changing nothing.
   */
  applyRemote(upserts: readonly EditorAnnotation[], removed: Iterable<string> = []): void {
    const base = this.doc;
    const [next, patches] = immer.produceWithPatches(base, (draft) => {
      const tx = new DocTx(draft, base);
      for (const id of removed) tx.remove(id);
      for (const a of upserts) {
        const problem = validateEditorAnnotation(a);
        if (problem) throw new Error(`Invalid annotation ${a.id}: ${problem}`);
        if (tx.has(a.id)) tx.set(a);
        else tx.add(a);
      }
    });
    if (patches.length === 0) return;
    this.doc = next;
    const change = changedIds(patches);
    if (change.all) this.history.clear();
    else this.history.forget(change.ids);
    this.afterDocChange(change);
  }

  private applyPatches(patches: readonly Patch[]): void {
    if (patches.length === 0) return;
    const before = this.doc;
    const change = changedIds(patches);
    let doc = applyDocPatches(before, patches) ?? immer.applyPatches(before, patches as Patch[]);
    // count and nextZ follow the shapes rather than the values a history entry recorded: those
    // are stale once applyRemote changed the document in between.
    if (!change.all) {
      let count = before.count;
      let nextZ = before.nextZ;
      for (const id of change.ids) {
        count += (getAnnotation(doc, id) ? 1 : 0) - (getAnnotation(before, id) ? 1 : 0);
        const z = getZ(doc, id);
        if (z !== undefined && z >= nextZ) nextZ = z + 1;
      }
      if (count !== doc.count || nextZ !== doc.nextZ) doc = { ...doc, count, nextZ };
    }
    this.doc = doc;
    this.afterDocChange(change);
  }

  private afterDocChange(change: ChangedIds, viewChanged = false, orderReady = false): void {
    this.docVersion++;
    if (!orderReady) this.order.update(this.doc, change);
    this.index.update(change);
    // Selection and hover never point at a shape that no longer exists.
    const view = this.view;
    let selected = view.selected;
    const gone = (id: string) => !getAnnotation(this.doc, id);
    if ([...selected].some(gone)) selected = new Set([...selected].filter((id) => !gone(id)));
    const hovered = view.hovered && gone(view.hovered) ? null : view.hovered;
    const selectedVertex = view.selectedVertex && !this.vertexExists(view.selectedVertex) ? null : view.selectedVertex;
    if (selected !== view.selected || hovered !== view.hovered || selectedVertex !== view.selectedVertex) {
      this.view = { ...view, selected, hovered, selectedVertex };
      viewChanged = true;
    }
    this.notify({ document: change, view: viewChanged });
  }

  private vertexExists(ref: VertexRef): boolean {
    const a = getAnnotation(this.doc, ref.id);
    if (!a || (a.type !== 'polygon' && a.type !== 'polyline')) return false;
    const ring = ref.ring === 0 ? a.points : a.type === 'polygon' ? a.holes?.[ref.ring - 1] : undefined;
    return !!ring && ref.index < ring.length;
  }

  // ---------------------------------------------------------------- history

  /**
   * Runs several commands as one undo entry labelled `label` (e.g. auto-annotate's Complete).
   * If `fn` throws, its changes are rolled back. Nested calls join the outer entry.
   */
  batch<T>(label: string, fn: () => T): T {
    if (this.view.readOnly) throw new ReadOnlyError(`'${label}'`);
    if (this.history.inGesture) return fn();
    this.history.begin(label);
    try {
      const result = fn();
      this.history.commit();
      return result;
    } catch (err) {
      this.applyPatches(this.history.cancel());
      throw err;
    }
  }

  undo(): boolean {
    if (this.view.readOnly) return false;
    this.endGesture();
    const e = this.history.takeUndo();
    if (!e) return false;
    this.applyPatches(e.inverse);
    return true;
  }

  redo(): boolean {
    if (this.view.readOnly) return false;
    this.endGesture();
    const e = this.history.takeRedo();
    if (!e) return false;
    this.applyPatches(e.patches);
    return true;
  }

  canUndo(): boolean {
    return !this.view.readOnly && this.history.canUndo();
  }

  canRedo(): boolean {
    return !this.view.readOnly && this.history.canRedo();
  }

  /** Undo entry labels, oldest first. */
  getUndoLabels(): string[] {
    return this.history.undoLabels();
  }

  getRedoLabels(): string[] {
    return this.history.redoLabels();
  }

  /** Abandons a drag or drawing in progress (its changes are rolled back). */
  private endGesture(): void {
    this.activeTool().cancel();
    if (this.history.inGesture) this.applyPatches(this.history.cancel());
  }

  // ---------------------------------------------------------------- view state

  getView(): ViewState {
    return this.view;
  }

  private setView(patch: Partial<ViewState>): void {
    this.view = { ...this.view, ...patch };
    this.notify({ view: true });
  }

  /** Tools that never change the document: the only ones a read-only editor offers. */
  static readonly VIEW_TOOLS: readonly ToolId[] = ['select', 'pan'];

  /**
   * View only, for a role that may not edit annotations: every mutating call is refused
   * (execute and batch throw ReadOnlyError; undo, redo, deleteSelected, paste, setSelectedClass and
   * nudgeSelected do nothing; Delete, Backspace and arrow keys are not taken), drawing tools cannot
   * be chosen and the select tool only selects (no moves, vertex or box handles). Selecting,
   * hiding, copying, panning and zooming still work; loads and applyRemote still replace the
   * document. Turning it on cancels a gesture in progress and falls back to the select tool.
   */
  setReadOnly(on: boolean): void {
    if (on === this.view.readOnly) return;
    if (on) this.endGesture();
    const tool = on && !Editor.VIEW_TOOLS.includes(this.view.tool) ? 'select' : this.view.tool;
    this.setView({ readOnly: on, tool, drawing: null, marquee: null, selectedVertex: null });
  }

  get readOnly(): boolean {
    return this.view.readOnly;
  }

  /** Chooses a tool; a drawing tool is ignored while read-only. */
  setTool(tool: ToolId): void {
    if (tool === this.view.tool) return;
    if (this.view.readOnly && !Editor.VIEW_TOOLS.includes(tool)) return;
    this.endGesture();
    this.setView({ tool, drawing: null, marquee: null });
  }

  /**
   * The segmentation backend of the Auto-Annotate tool (the app's, talking to its server), or
   * null: then the tool collects prompts but asks for no mask. Changing it drops the prompt.
   */
  setSegmenter(s: Segmenter | null): void {
    if (s === this.segmenter) return;
    this.segmenter = s;
    this.clearProposal();
  }

  /**
   * The attributes a shape of a class holds (issue 19): new shapes get their class's defaults and a
   * class change conforms them (commands create and set-class). The app passes its classes'
   * definitions; unset, attributes stay as they are.
   */
  setAttributesPolicy(policy: AttributesPolicy | undefined): void {
    this.attributesFor = policy;
  }

  private autoTool(): AutoTool {
    return this.tools.auto as AutoTool;
  }

  /** Auto-Annotate's Complete: accepts the mask shown, as Enter does. False when there is none to accept. */
  acceptProposal(): boolean {
    return this.view.tool === 'auto' && this.autoTool().accept();
  }

  /** Auto-Annotate's Clear: drops the points, the box and the mask, and the request in flight. */
  clearProposal(): void {
    if (this.view.tool === 'auto') this.autoTool().cancel();
  }

  /** A mask is shown and no request runs (Complete is enabled). */
  canAcceptProposal(): boolean {
    return this.view.tool === 'auto' && this.autoTool().canAccept();
  }

  setActiveClass(cls: string | null): void {
    if (cls !== this.view.activeClass) this.setView({ activeClass: cls });
  }

  setTransparency(value: number): void {
    const v = Math.min(100, Math.max(0, Math.round(value)));
    if (v !== this.view.transparency) this.setView({ transparency: v });
  }

  /** Sets the selection ('replace'), or adds / toggles ids. Unknown ids are ignored. */
  select(ids: Iterable<string>, mode: 'replace' | 'add' | 'toggle' = 'replace'): void {
    const next = mode === 'replace' ? new Set<string>() : new Set(this.view.selected);
    for (const id of ids) {
      if (!getAnnotation(this.doc, id)) continue;
      if (mode === 'toggle' && next.has(id)) next.delete(id);
      else next.add(id);
    }
    this.setSelection(next);
  }

  private setSelection(ids: Iterable<string>): void {
    const next = new Set(ids);
    const cur = this.view.selected;
    if (next.size === cur.size && [...next].every((id) => cur.has(id))) return;
    this.setView({ selected: next, selectedVertex: null });
  }

  selectAll(): void {
    this.setSelection(this.order.ordered().filter((id) => !this.view.hidden.has(id)));
  }

  clearSelection(): void {
    this.setSelection([]);
  }

  getSelectedIds(): string[] {
    return this.order.ordered().filter((id) => this.view.selected.has(id));
  }

  isHidden(id: string): boolean {
    return this.view.hidden.has(id);
  }

  hide(ids: Iterable<string>): void {
    const hidden = new Set(this.view.hidden);
    for (const id of ids) hidden.add(id);
    // Hidden shapes can be neither hit nor kept selected.
    const selected = new Set([...this.view.selected].filter((id) => !hidden.has(id)));
    this.setView({ hidden, selected, hovered: this.view.hovered && hidden.has(this.view.hovered) ? null : this.view.hovered });
  }

  show(ids: Iterable<string>): void {
    const hidden = new Set(this.view.hidden);
    for (const id of ids) hidden.delete(id);
    this.setView({ hidden });
  }

  toggleHidden(id: string): void {
    if (this.view.hidden.has(id)) this.show([id]);
    else this.hide([id]);
  }

  hideSelected(): void {
    this.hide([...this.view.selected]);
  }

  hideAll(): void {
    this.hide(this.order.ordered());
  }

  showAll(): void {
    this.setView({ hidden: new Set() });
  }

  /** True when every annotation is hidden (and there is at least one). */
  allHidden(): boolean {
    const ids = this.order.ordered();
    return ids.length > 0 && ids.every((id) => this.view.hidden.has(id));
  }

  /** Hide All / Show All in one button (spec: H without a selection). */
  toggleAll(): void {
    if (this.allHidden()) this.showAll();
    else this.hideAll();
  }

  // ---------------------------------------------------------------- editing shortcuts

  /** Deletes the selection as one entry ('Delete N annotation(s)'); returns how many. */
  deleteSelected(): number {
    if (this.view.readOnly) return 0;
    const ids = this.getSelectedIds();
    if (ids.length === 0) return 0;
    this.execute('delete', { ids });
    return ids.length;
  }

  /** Copies the selection (paint order); returns serialisable shapes, also kept for paste(). */
  copy(): EditorAnnotation[] {
    const shapes = this.getSelectedIds().map((id) => structuredClone(getAnnotation(this.doc, id)!) as EditorAnnotation);
    if (shapes.length > 0) {
      this.clipboard = shapes;
      this.pasteCount = 0;
    }
    this.emit({ type: 'copied', count: shapes.length });
    return structuredClone(shapes);
  }

  /**
   * Pastes shapes (default: the last copy) with fresh ids, offset by 20 px; repeated pastes of
   * the same copy cascade (20, 40, ...). The pasted shapes become the selection.
   */
  paste(shapes?: readonly EditorAnnotation[], offset?: number): string[] {
    if (this.view.readOnly) return [];
    let off = offset;
    if (!shapes) {
      shapes = this.clipboard;
      this.pasteCount++;
      off ??= PASTE_OFFSET * this.pasteCount;
    }
    if (shapes.length === 0) return [];
    this.endGesture();
    const ids = this.execute('paste', { annotations: shapes, offset: off ?? PASTE_OFFSET });
    this.setSelection(ids);
    this.emit({ type: 'pasted', count: ids.length, ids });
    return ids;
  }

  /** The class picker with a selection: gives every selected annotation this class (one entry). */
  setSelectedClass(cls: string): void {
    if (this.view.readOnly) return;
    const ids = this.getSelectedIds();
    if (ids.length > 0) this.execute('set-class', { ids, class: cls });
  }

  /** Moves the selection by (dx, dy) image pixels as one entry. */
  nudgeSelected(dx: number, dy: number): void {
    if (this.view.readOnly) return;
    const ids = this.getSelectedIds();
    if (ids.length > 0) this.execute('move', { ids, dx, dy });
  }

  // ---------------------------------------------------------------- camera

  getCamera(): CameraState {
    return this.camera;
  }

  setCamera(c: CameraState): void {
    const next = { x: c.x, y: c.y, scale: clampScale(c.scale) };
    if (next.x === this.camera.x && next.y === this.camera.y && next.scale === this.camera.scale) return;
    this.camera = next;
    this.notify({ camera: true });
  }

  setViewport(size: Size): void {
    this.viewport = size;
  }

  getViewport(): Size {
    return this.viewport;
  }

  setImageSize(size: Size | null): void {
    this.image = size;
  }

  getImageSize(): Size | null {
    return this.image;
  }

  zoomAt(sx: number, sy: number, factor: number): void {
    this.setCamera(cameraZoomAt(this.camera, sx, sy, factor));
  }

  zoomIn(): void {
    this.zoomAt(this.viewport.width / 2, this.viewport.height / 2, ZOOM_IN);
  }

  zoomOut(): void {
    this.zoomAt(this.viewport.width / 2, this.viewport.height / 2, ZOOM_OUT);
  }

  panBy(dx: number, dy: number): void {
    this.setCamera(cameraPanBy(this.camera, dx, dy));
  }

  fitToScreen(): void {
    if (this.image) this.setCamera(cameraFit(this.viewport, this.image));
  }

  /** The camera fitToScreen() would set for an image of `size` in this viewport (a renderer preparing the next image's view). */
  fitCamera(size: Size): CameraState {
    return cameraFit(this.viewport, size);
  }

  /** Pans (and zooms out if needed) so the annotation is fully visible. */
  bringIntoView(id: string): void {
    const a = getAnnotation(this.doc, id);
    if (a) this.setCamera(cameraBringIntoView(this.camera, this.viewport, annotationBounds(a)));
  }

  screenToImage(sx: number, sy: number): [number, number] {
    return screenToImage(this.camera, sx, sy);
  }

  imageToScreen(ix: number, iy: number): [number, number] {
    return imageToScreen(this.camera, ix, iy);
  }

  // ---------------------------------------------------------------- hit-testing

  /**
   * Builds the hit-test index ahead of the first query, for about `budgetMs` per call; returns
   * true once it is ready. Call it in idle time after a load (the render client does) so the
   * first pointer move over 100k shapes does not pay the whole build in one task.
   */
  prepareIndex(budgetMs = 8): boolean {
    return this.index.prepare(budgetMs);
  }

  /** Visible annotations hit at an image point, topmost (newest) first. */
  hitTestAll(x: number, y: number, tolerance = hitRadius(this.camera.scale)): string[] {
    const hidden = this.view.hidden;
    const hits: string[] = [];
    const r = tolerance * KEYPOINT_HIT_SCALE; // the widest hit radius (keypoints')
    for (const id of this.index.search(x - r, y - r, x + r, y + r)) {
      if (hidden.has(id)) continue;
      const a = getAnnotation(this.doc, id);
      if (a && hitAnnotation(a, x, y, tolerance)) hits.push(id);
    }
    if (hits.length > 1) hits.sort((a, b) => this.order.zIndex(b)! - this.order.zIndex(a)!);
    return hits;
  }

  /** The topmost visible annotation at an image point, or null. */
  hitTest(x: number, y: number, tolerance = hitRadius(this.camera.scale)): string | null {
    const all = this.hitTestAll(x, y, tolerance);
    return all[0] ?? null;
  }

  /** Visible annotations whose bounds lie inside the image-space rectangle (marquee rule). */
  queryInside(b: Bounds): string[] {
    const hidden = this.view.hidden;
    const out: string[] = [];
    for (const id of this.index.search(b.minX, b.minY, b.maxX, b.maxY)) {
      if (hidden.has(id)) continue;
      const a = getAnnotation(this.doc, id);
      if (a && boundsContains(b, annotationBounds(a))) out.push(id);
    }
    return out;
  }

  /** Visible annotations whose bounds intersect the rectangle, in paint order (viewport culling). */
  queryIntersecting(b: Bounds): string[] {
    const hidden = this.view.hidden;
    const out = this.index.search(b.minX, b.minY, b.maxX, b.maxY).filter((id) => !hidden.has(id));
    return out.sort((a, c) => this.order.zIndex(a)! - this.order.zIndex(c)!);
  }

  // ---------------------------------------------------------------- input

  private activeTool(): Tool {
    return this.tools[this.view.tool];
  }

  private toToolEvent(e: ScreenPointerInput): ToolPointerEvent {
    const [x, y] = screenToImage(this.camera, e.x, e.y);
    return {
      x, y, sx: e.x, sy: e.y,
      button: e.button ?? 0,
      scale: this.camera.scale,
      shiftKey: e.shiftKey, altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey,
    };
  }

  pointerDown(e: ScreenPointerInput): void {
    // Middle button or space+drag pans in every tool.
    if ((e.button ?? 0) === 1 || this.spaceDown) {
      this.panning = { sx: e.x, sy: e.y };
      return;
    }
    if (this.inputPaused) return;
    this.activeTool().onPointerDown(this.toToolEvent(e));
  }

  /**
   * While paused, pointer and key input reach no tool (panning still works): the document shown
   * is on its way out (another image's is loading) and an edit made on it now would be lost.
   */
  setInputPaused(on: boolean): void {
    if (on === this.inputPaused) return;
    this.inputPaused = on;
    if (on) this.activeTool().cancel();
  }

  pointerMove(e: ScreenPointerInput): void {
    if (this.panning) {
      this.panBy(e.x - this.panning.sx, e.y - this.panning.sy);
      this.panning = { sx: e.x, sy: e.y };
      return;
    }
    if (this.inputPaused) return;
    this.activeTool().onPointerMove(this.toToolEvent(e));
  }

  pointerUp(e: ScreenPointerInput): void {
    if (this.panning) {
      this.panning = null;
      return;
    }
    if (this.inputPaused) return;
    this.activeTool().onPointerUp(this.toToolEvent(e));
  }

  doubleClick(e: ScreenPointerInput): void {
    if (this.inputPaused) return;
    this.activeTool().onDoubleClick(this.toToolEvent(e));
  }

  /** The pointer left the canvas: drop hover. */
  pointerLeave(): void {
    if (this.view.hovered) this.setView({ hovered: null });
  }

  /** Wheel zooms at the cursor: 1.1 in (deltaY < 0), 0.9 out. */
  wheel(e: WheelInput): void {
    if (e.deltaY === 0) return;
    this.zoomAt(e.x, e.y, e.deltaY < 0 ? ZOOM_IN : ZOOM_OUT);
  }

  /**
   * Tool-level keys. Returns true when handled (the SPA should then preventDefault).
   * Escape/Enter/Backspace go to a drawing tool first; then Delete/Backspace delete the picked
   * vertex or the selection, arrows nudge by 1 px (Shift: 10), Escape clears the selection,
   * W/A/S/D pan by 50 px, Space held turns drags into pans. App hotkeys stay in the SPA.
   */
  keyDown(e: KeyInput): boolean {
    if (this.inputPaused) return false;
    const tool = this.activeTool();
    if (tool.onKeyDown({ key: e.key, shiftKey: e.shiftKey, altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey })) return true;
    const mod = e.ctrlKey || e.metaKey || e.altKey;
    if (e.key === ' ') {
      this.spaceDown = true;
      return true;
    }
    if (mod) return false;
    if (tool.isBusy()) return false;
    switch (e.key) {
      case 'Delete':
      case 'Backspace': {
        if (this.view.readOnly) return false;
        const v = this.view.selectedVertex;
        if (v) {
          this.execute('delete-vertex', { ref: v });
          this.setView({ selectedVertex: null });
          return true;
        }
        return this.deleteSelected() > 0;
      }
      case 'ArrowLeft':
      case 'ArrowRight':
      case 'ArrowUp':
      case 'ArrowDown': {
        if (this.view.selected.size === 0 || this.view.readOnly) return false;
        const step = e.shiftKey ? NUDGE_SHIFT : NUDGE;
        const dx = e.key === 'ArrowLeft' ? -step : e.key === 'ArrowRight' ? step : 0;
        const dy = e.key === 'ArrowUp' ? -step : e.key === 'ArrowDown' ? step : 0;
        this.nudgeSelected(dx, dy);
        return true;
      }
      case 'Escape':
        if (this.view.selected.size === 0) return false;
        this.clearSelection();
        return true;
    }
    // W/A/S/D move the view over the image: W shows what is above (content moves down).
    const pan: Record<string, [number, number]> = { w: [0, PAN_STEP], s: [0, -PAN_STEP], a: [PAN_STEP, 0], d: [-PAN_STEP, 0] };
    const p = pan[e.key.toLowerCase()];
    if (p) {
      this.panBy(p[0], p[1]);
      return true;
    }
    return false;
  }

  keyUp(e: KeyInput): void {
    if (e.key === ' ') this.spaceDown = false;
  }

  // ---------------------------------------------------------------- tools' view of the editor

  private toolApi(): ToolApi {
    return {
      doc: () => this.doc,
      get: (id) => getAnnotation(this.doc, id),
      view: () => this.view,
      execute: (name, payload) => this.execute(name, payload),
      begin: (label) => this.history.begin(label),
      relabel: (label) => this.history.relabel(label),
      commit: () => this.history.commit(),
      rollback: () => this.applyPatches(this.history.cancel()),
      setSelection: (ids) => this.setSelection(ids),
      setSelectedVertex: (ref: VertexRef | null) => {
        if (ref !== this.view.selectedVertex) this.setView({ selectedVertex: ref });
      },
      setHovered: (id) => {
        if (id !== this.view.hovered) this.setView({ hovered: id });
      },
      setDrawing: (d: DrawingPreview | null) => {
        if (d !== this.view.drawing) this.setView({ drawing: d });
      },
      setMarquee: (r: Rect | null) => {
        if (r !== this.view.marquee) this.setView({ marquee: r });
      },
      hitTest: (x, y, tol) => this.hitTest(x, y, tol),
      hitTestAll: (x, y, tol) => this.hitTestAll(x, y, tol),
      queryInside: (b) => this.queryInside(b),
      emit: (e) => this.emit(e),
      newId: () => this.newId(),
      clampToImage: (x, y) => {
        const img = this.image;
        if (!img) return [x, y];
        return [Math.min(img.width, Math.max(0, x)), Math.min(img.height, Math.max(0, y))];
      },
      panBy: (dx, dy) => this.panBy(dx, dy),
      segmenter: () => this.segmenter,
      proposalAccepted: (e) => {
        for (const l of [...this.proposalListeners]) l(e);
      },
    };
  }
}
