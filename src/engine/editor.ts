// The facade the SPA uses: document + history + view state + camera + tools + hit-testing.
// No DOM: the SPA forwards pointer/key/wheel events with canvas-relative screen coordinates.
import type { Patch } from 'immer';
import { commands, type CommandName, type CommandPayload, type CommandResult } from './commands';
import { Clipboard } from './commands/paste';
import type { AttributesPolicy, Command } from './commands/types';
import {
  bringIntoView as cameraBringIntoView,
  clampScale,
  fitToScreen as cameraFit,
  imageToScreen,
  panBy as cameraPanBy,
  screenToImage,
  zoomAt as cameraZoomAt,
  ZOOM_IN,
  ZOOM_OUT,
  WHEEL_NOTCH,
  WHEEL_MAX_NOTCHES,
  FIT_MARGIN,
  NO_INSETS,
  centreOn,
  clampToSize,
  minScaleFor,
  sameCamera,
  type CameraState,
  type Insets,
  type Size,
} from './camera';
import type { EditorChange, EditorEvent } from './events';
import { mergeRemote, replayPatches, runCommand } from './doc-changes';
import { DocumentHistories } from './document-histories';
import { History } from './history';
import { uuid } from './ids';
import { HitTester } from './hit-test';
import { InputRouter, type KeyInput, type ScreenPointerInput, type WheelInput } from './input';
import { annotationList, buildInSlices, storedItems, type LoadOptions } from './load-slices';
import { parseStoredAnnotations } from './model/convert';
import {
  changedIds,
  DocBuilder,
  docFromAnnotations,
  emptyDoc,
  getAnnotation,
  OrderIndex,
  type ChangedIds,
  type DocState,
} from './model/document';
import { annotationBounds, type Bounds } from './model/geometry';
import type { EditorAnnotation, EditorDocumentJSON } from './model/types';
import { Predictions } from './predictions';
import { SpatialIndex } from './spatial';
import { createTools, type AutoTool } from './tools';
import { AutoAnnotate } from './tools/auto/control';
import { MaskCommands } from './tools/brush';
import { SkeletonRegistry } from './tools/skeleton/registry';
import { hitRadius, type Tool, type ToolApi } from './tools/types';
import { initialView, pruneView, type ToolId, type ViewState } from './view';

export type { EditorChange } from './events';
export type { LoadOptions } from './load-slices';
export { NUDGE, NUDGE_SHIFT, type KeyInput, type ScreenPointerInput, type WheelInput } from './input';

export { PASTE_OFFSET } from './commands/paste';

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
  /** The live document's key and the histories of documents shown earlier in the session. */
  private readonly histories = new DocumentHistories();
  private readonly order = new OrderIndex();
  private readonly index: SpatialIndex;
  private readonly hits: HitTester;
  private view: ViewState = initialView();
  private camera: CameraState = { x: 0, y: 0, scale: 1 };
  private viewport: Size = { width: 0, height: 0 };
  private image: Size | null = null;
  private fitInsets: Insets = NO_INSETS;
  private readonly tools: Record<ToolId, Tool>;
  private readonly input: InputRouter;
  private readonly listeners = new Set<(c: EditorChange) => void>();
  private readonly eventListeners = new Set<(e: EditorEvent) => void>();
  /** The skeleton classes' definitions (issue 33): `skeletons.set(defs)`, `skeletons.of(name)`. */
  readonly skeletons = new SkeletonRegistry(() => this.notify({ view: true }));
  /** The mask commands and the wasm kernels they and the brush run on: `masks.setOps(k)`, `masks.run(action)`. */
  readonly masks: MaskCommands;
  /** Auto-Annotate: `auto.setSegmenter(s)`, `auto.onAccepted(fn)`, `auto.accept()` (Complete), `auto.clear()`, `auto.canAccept()`. */
  readonly auto = new AutoAnnotate(() => (this.view.tool === 'auto' ? (this.tools.auto as AutoTool) : null));
  /** A model's predictions under review (issue 34): `predictions.acceptAll()`, `setMinScore(0.5)`, `step(1)`, ... */
  readonly predictions: Predictions;
  /** The shapes hidden by hand (the eye buttons, H); view.hidden adds the predictions the score filter hides. */
  private userHidden: ReadonlySet<string> = new Set();
  private attributesFor: AttributesPolicy | undefined;
  private readonly newId: () => string;
  private readonly clipboard = new Clipboard();
  private docVersion = 0;
  private loadToken = 0;

  constructor(options: EditorOptions = {}) {
    this.newId = options.idGenerator ?? uuid;
    this.index = new SpatialIndex(() => this.doc);
    this.hits = new HitTester(this.index, this.order, () => this.doc, (cls) => this.skeletons.of(cls)?.edges);
    this.order.reset(this.doc);
    if (options.viewport) this.viewport = options.viewport;
    if (options.image) this.image = options.image;
    const api = this.toolApi();
    this.tools = createTools(api);
    this.masks = new MaskCommands(api, (label, fn) => this.batch(label, fn), () => this.getSelectedIds());
    const centre = (id: string) => this.setCamera(centreOn(this.camera, this.viewport, annotationBounds(getAnnotation(this.doc, id)!), FIT_MARGIN, this.minScale()));
    this.predictions = new Predictions({ api, z: (id) => this.order.zIndex(id), centre, filterChanged: () => this.setHidden(this.userHidden) });
    this.input = new InputRouter({
      tool: () => this.activeTool(),
      camera: () => this.camera,
      view: () => this.view,
      panBy: (dx, dy) => this.panBy(dx, dy),
      deleteVertex: (ref) => {
        this.execute('delete-vertex', { ref });
        this.setView({ selectedVertex: null });
      },
      deleteSelected: () => this.deleteSelected(),
      nudgeSelected: (dx, dy) => this.nudgeSelected(dx, dy),
      clearSelection: () => this.clearSelection(),
      reviewKey: (key) => this.predictions.reviewKey(key),
      viewport: () => this.viewport,
      clampToImage: (x, y) => clampToSize(this.image, x, y),
      showKeyCursor: (p) => this.setViewField('keyCursor', p),
    });
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
    const list = annotationList(doc);
    this.loadToken++;
    this.install(docFromAnnotations(list));
  }

  /**
   * load() in tasks of about `budgetMs`, the document changing in one step at the end. A later
   * load or cancelLoad() abandons it (resolves false). Rejects on invalid input as load() throws.
   */
  async loadAsync(doc: EditorDocumentJSON | readonly EditorAnnotation[], options: number | LoadOptions = {}): Promise<boolean> {
    const list = annotationList(doc);
    return this.loadInSlices(list.length, (i) => list[i]!, 64, options);
  }

  /**
   * loadStored() in slices (validated, converted and added in one pass: about 20 us a shape). As
   * loadAsync; rejects with a ZodError (paths from the annotation's index), the document unchanged.
   */
  async loadStoredAsync(json: unknown, options: LoadOptions = {}): Promise<boolean> {
    if (!Array.isArray(json)) {
      this.loadStored(json); // not a list: throws loadStored's ZodError
      return true;
    }
    return this.loadInSlices(json.length, storedItems(json), 16, options);
  }

  /** Abandons a loadAsync() / loadStoredAsync() in progress (the document stays as it is). */
  cancelLoad(): void {
    this.loadToken++;
  }

  private async loadInSlices(total: number, item: (i: number, building: DocBuilder) => EditorAnnotation, checkEvery: number, options: number | LoadOptions): Promise<boolean> {
    const opts = typeof options === 'number' ? { budgetMs: options } : options;
    const token = ++this.loadToken;
    const built = await buildInSlices(total, item, checkEvery, opts, () => token === this.loadToken);
    if (!built) return false;
    this.order.adopt(built.ids, built.zOf);
    this.install(built.doc, true, opts.historyKey);
    opts.onProgress?.(total, total);
    return true;
  }

  private install(doc: DocState, orderReady = false, historyKey?: string): void {
    this.activeTool().cancel();
    if (this.history.inGesture) this.applyPatches(this.history.cancel());
    this.histories.shelve(this.history, this.doc);
    this.doc = doc;
    this.history.clear();
    this.histories.open(historyKey ?? null, this.history, doc);
    this.userHidden = new Set();
    this.view = { ...this.view, selected: new Set(), hidden: this.userHidden, hovered: null, selectedVertex: null, drawing: null, marquee: null };
    this.afterDocChange({ all: true }, true, orderReady);
  }

  /** The key the live document was loaded with (LoadOptions.historyKey: an image id), or null. */
  get documentKey(): string | null {
    return this.histories.key;
  }

  /** Keys of the histories kept for documents not shown now (least recently left first). */
  shelvedHistoryKeys(): string[] {
    return this.histories.shelvedKeys();
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

  /** getOrderedIds() without the copy: read-only, current until the next document change (a virtual list's rows). */
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
    const { doc, patches, inverse, result } = runCommand(this.doc, cmd, payload, { newId: this.newId, attributesFor: this.attributesFor, skeletonOf: this.skeletons.of });
    if (patches.length === 0) return result;
    this.doc = doc;
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
    const { doc, patches } = mergeRemote(this.doc, upserts, removed);
    if (patches.length === 0) return;
    this.doc = doc;
    const change = changedIds(patches);
    if (change.all) this.history.clear();
    else this.history.forget(change.ids);
    this.afterDocChange(change);
  }

  private applyPatches(patches: readonly Patch[]): void {
    if (patches.length === 0) return;
    const { doc, change } = replayPatches(this.doc, patches);
    this.doc = doc;
    this.afterDocChange(change);
  }

  private afterDocChange(change: ChangedIds, viewChanged = false, orderReady = false): void {
    this.docVersion++;
    if (!orderReady) this.order.update(this.doc, change);
    this.index.update(change);
    const filtered = this.predictions.update(this.doc, change);
    // Selection and hover never point at a shape that no longer exists (or the score filter hides).
    const view = pruneView(filtered ? { ...this.view, hidden: this.hiddenSet() } : this.view, this.doc);
    if (view !== this.view) {
      this.view = view;
      viewChanged = true;
    }
    this.notify({ document: change, view: viewChanged });
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

  /** Undoes the last edit; while Auto-Annotate has a prompt, its last click or box instead. */
  undo(): boolean {
    if (this.view.readOnly) return false;
    if (this.auto.tool()?.undoStep()) return true;
    this.endGesture();
    const e = this.history.takeUndo();
    if (!e) return false;
    this.applyPatches(e.inverse);
    return true;
  }

  /** Redoes the last undone edit; Auto-Annotate's click or box taken off by undo comes back first. */
  redo(): boolean {
    if (this.view.readOnly) return false;
    // While prompting, redo only ever puts back a step: the prompt is never dropped for a document redo.
    const auto = this.auto.tool();
    if (auto?.redoStep()) return true;
    if (auto?.isBusy()) return false;
    this.endGesture();
    const e = this.history.takeRedo();
    if (!e) return false;
    this.applyPatches(e.patches);
    return true;
  }

  canUndo(): boolean {
    return !this.view.readOnly && (this.history.canUndo() || !!this.auto.tool()?.canUndoStep());
  }

  canRedo(): boolean {
    return !this.view.readOnly && (this.history.canRedo() || !!this.auto.tool()?.canRedoStep());
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

  /** Sets one view field, telling listeners only when it changes. */
  private setViewField<K extends keyof ViewState>(key: K, value: ViewState[K]): void {
    if (this.view[key] !== value) this.setView({ [key]: value } as Pick<ViewState, K>);
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
   * The attributes a shape of a class holds (issue 19): new shapes get their class's defaults and a
   * class change conforms them (commands create and set-class). The app passes its classes'
   * definitions; unset, attributes stay as they are.
   */
  setAttributesPolicy(policy: AttributesPolicy | undefined): void {
    this.attributesFor = policy;
  }

  setActiveClass(cls: string | null): void {
    this.setViewField('activeClass', cls);
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
    this.setHidden(new Set([...this.userHidden, ...ids]));
  }

  show(ids: Iterable<string>): void {
    const user = new Set(this.userHidden);
    for (const id of ids) user.delete(id);
    this.setHidden(user);
  }

  /** The shapes hidden by hand, and with them the predictions the score filter hides; hidden shapes can be neither hit nor kept selected. */
  private setHidden(user: ReadonlySet<string>): void {
    this.userHidden = user;
    this.setView(pruneView({ ...this.view, hidden: this.hiddenSet() }, this.doc));
  }

  private hiddenSet(): ReadonlySet<string> {
    const below = this.predictions.hiddenByScore;
    return below.size ? new Set([...this.userHidden, ...below]) : this.userHidden;
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
    this.setHidden(new Set());
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
    const shapes = this.clipboard.keep(this.getSelectedIds().map((id) => getAnnotation(this.doc, id)!));
    this.emit({ type: 'copied', count: shapes.length });
    return shapes;
  }

  /**
   * Pastes shapes (default: the last copy) with fresh ids, offset by 20 px; repeated pastes of
   * the same copy cascade (20, 40, ...). The pasted shapes become the selection.
   */
  paste(shapes?: readonly EditorAnnotation[], offset?: number): string[] {
    if (this.view.readOnly) return [];
    const payload = this.clipboard.next(shapes, offset);
    if (payload.annotations.length === 0) return [];
    this.endGesture();
    const ids = this.execute('paste', payload);
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
    const next = { x: c.x, y: c.y, scale: clampScale(c.scale, this.minScale()) };
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
    this.setCamera(cameraZoomAt(this.camera, sx, sy, factor, this.minScale()));
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
    if (this.image) this.setCamera(this.fitCamera(this.image));
  }

  /** The least scale the view may take: 10%, or less for an image too big to be seen whole at it (camera.ts minScaleFor). */
  minScale(): number {
    return minScaleFor(this.viewport, this.image, FIT_MARGIN, this.fitInsets);
  }

  /** The camera fitToScreen() would set for an image of `size` in this viewport (a renderer preparing the next image's view). */
  fitCamera(size: Size): CameraState {
    return cameraFit(this.viewport, size, FIT_MARGIN, this.fitInsets);
  }

  /**
   * Room the fit keeps clear (a bar laid over the canvas, such as Auto-Annotate's). A view at fit
   * zoom is fitted again with the new room; a view zoomed or panned by hand stays as it is.
   */
  setFitInsets(insets: Insets): void {
    const atFit = this.image !== null && sameCamera(this.camera, this.fitCamera(this.image));
    this.fitInsets = insets;
    if (atFit) this.fitToScreen();
  }

  /** Pans (and zooms out if needed) so the annotation is fully visible. */
  bringIntoView(id: string): void {
    const a = getAnnotation(this.doc, id);
    if (a) this.setCamera(cameraBringIntoView(this.camera, this.viewport, annotationBounds(a), FIT_MARGIN, this.minScale()));
  }

  screenToImage(sx: number, sy: number): [number, number] {
    return screenToImage(this.camera, sx, sy);
  }

  imageToScreen(ix: number, iy: number): [number, number] {
    return imageToScreen(this.camera, ix, iy);
  }

  // ---------------------------------------------------------------- hit-testing

  /** Builds the hit-test index ahead of the first query, about `budgetMs` a call (idle time after a load); true once ready. */
  prepareIndex(budgetMs = 8): boolean {
    return this.index.prepare(budgetMs);
  }

  /** Visible annotations hit at an image point, topmost (newest) first. */
  hitTestAll(x: number, y: number, tolerance = hitRadius(this.camera.scale)): string[] {
    return this.hits.all(x, y, tolerance, this.view.hidden);
  }

  /** The topmost visible annotation at an image point, or null. */
  hitTest(x: number, y: number, tolerance = hitRadius(this.camera.scale)): string | null {
    const all = this.hitTestAll(x, y, tolerance);
    return all[0] ?? null;
  }

  /** Visible annotations whose bounds lie inside the image-space rectangle (marquee rule). */
  queryInside(b: Bounds): string[] {
    return this.hits.inside(b, this.view.hidden);
  }

  /** Visible annotations whose bounds intersect the rectangle, in paint order (viewport culling). */
  queryIntersecting(b: Bounds): string[] {
    return this.hits.intersecting(b, this.view.hidden);
  }

  // ---------------------------------------------------------------- input

  /**
   * The keypoint tool with a skeleton class draws skeleton instances (issue 33); an instance
   * begun goes on with its own class when the active class changes.
   */
  private activeTool(): Tool {
    const { tool, activeClass: cls } = this.view;
    const skeleton = tool === 'keypoint' && (this.tools.skeleton.isBusy() || (cls !== null && this.skeletons.has(cls)));
    return this.tools[skeleton ? 'skeleton' : tool];
  }

  pointerDown(e: ScreenPointerInput): void {
    this.input.pointerDown(e);
  }

  /**
   * While paused, pointer and key input reach no tool (panning still works): the document shown
   * is on its way out (another image's is loading) and an edit made on it now would be lost.
   */
  setInputPaused(on: boolean): void {
    this.input.setPaused(on);
  }

  pointerMove(e: ScreenPointerInput): void {
    this.input.pointerMove(e);
  }

  pointerUp(e: ScreenPointerInput): void {
    this.input.pointerUp(e);
  }

  doubleClick(e: ScreenPointerInput): void {
    this.input.doubleClick(e);
  }

  /** The pointer left the canvas: drop hover. */
  pointerLeave(): void {
    this.setViewField('hovered', null);
  }

  /**
   * Wheel zooms at the cursor by its delta: 1.1 a notch (deltaY -100 in), 1/1.1 a notch out, and a
   * trackpad's small deltas by as little. By delta, not by event, because browsers merge the wheel
   * events that queue while the page is busy into one with the summed delta.
   */
  wheel(e: WheelInput): void {
    if (e.deltaY === 0 || !Number.isFinite(e.deltaY)) return;
    const notches = Math.max(-WHEEL_MAX_NOTCHES, Math.min(WHEEL_MAX_NOTCHES, -e.deltaY / WHEEL_NOTCH));
    this.zoomAt(e.x, e.y, ZOOM_IN ** notches);
  }

  /**
   * Tool-level keys (see the README); true when handled (the SPA should then preventDefault). On
   * pending predictions selected, Enter accepts and Delete rejects them, then selects the next.
   */
  keyDown(e: KeyInput): boolean {
    return this.input.keyDown(e);
  }

  keyUp(e: KeyInput): void {
    this.input.keyUp(e);
  }

  /** The canvas has keyboard focus: Enter then draws by keyboard (./keyboard-cursor.ts); false hides the cursor. */
  setCanvasFocused(on: boolean): void {
    this.input.setCanvasFocused(on);
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
      setSelectedVertex: (ref) => this.setViewField('selectedVertex', ref),
      setHovered: (id) => this.setViewField('hovered', id),
      setDrawing: (d) => this.setViewField('drawing', d),
      setMarquee: (r) => this.setViewField('marquee', r),
      hitTest: (x, y, tol) => this.hitTest(x, y, tol),
      hitTestAll: (x, y, tol) => this.hitTestAll(x, y, tol),
      queryInside: (b) => this.queryInside(b),
      emit: (e) => this.emit(e),
      newId: () => this.newId(),
      clampToImage: (x, y) => clampToSize(this.image, x, y),
      panBy: (dx, dy) => this.panBy(dx, dy),
      segmenter: () => this.auto.segmenter,
      maskOps: () => this.masks.ops,
      skeletonOf: this.skeletons.of,
      imageSize: () => this.image,
      proposalAccepted: (e) => this.auto.accepted(e),
    };
  }
}
