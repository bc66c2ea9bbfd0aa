// The palette's tool and the class picker, without React: which engine tool each palette tool
// drives, the class a drawing tool starts with (the one last used with its class tool; Auto-Annotate's is
// asked for once and kept per project on this device), relabelling a selection (the picker, the
// number keys, C, a row's menu), adding a class from the editor (in place, also in a project with
// none yet), and the dialogs that ask for a class when there is none to use (the engine's
// 'needs-class'). One per editor screen (the Editor lives as long as the screen); the screen tells
// it the project's classes, the role and the image as they change, and reads `getState()`
// (pages/annotate/hooks/useToolsAndClasses.ts).
import { classAllowsTool, FALLBACK_CLASS_COLOR, type ClassTool, type Project, type ProjectClass } from '../../contract/projects';
import type { Editor, EditorAnnotation, ToolId, ViewState } from '../../engine';
import { api, serverMessage } from '../api/client';
import { readStorage, writeStorage } from '../lib/storage';
import { toast } from '../stores/toast';
import type { AutoAnnotateSession } from './autoAnnotate';
import { autoAnnotateClass, classToolOfShape, classesForShapes, classesForTool, cycledClass, numberKeyClass, relabelPlan, sharedClassTool, TYPE_NAMES } from './classKeys';
import { MESSAGE_MS, type Tell } from './session';

/** The palette's tools (the hotkeys' EditorToolId). */
export type ToolName = 'select' | 'auto' | 'box' | 'polygon' | 'polyline' | 'keypoint' | 'brush' | 'eraser';

/** The engine tool behind each palette tool. */
const ENGINE_TOOL: Record<ToolName, ToolId> = { select: 'select', auto: 'auto', box: 'box', polygon: 'polygon', polyline: 'polyline', keypoint: 'keypoint', brush: 'brush', eraser: 'eraser' };
/** The class tool each drawing tool needs a class to allow (Auto-Annotate, the brush and the eraser draw masks). */
export const TOOL_CLASS_TOOL: Partial<Record<ToolName, ClassTool>> = { box: 'box', polygon: 'polygon', polyline: 'polyline', keypoint: 'keypoint', auto: 'mask', brush: 'mask', eraser: 'mask' };

/** Where Auto-Annotate's class is kept, per project, on this device. */
export const autoClassKey = (projectId: string) => `vellum.autoAnnotate.class.${projectId}`;

/** Auto-Annotate's class in this project: the one chosen (kept on this device), or the only class that may draw masks. */
export function storedAutoClass(projectId: string, classes: readonly ProjectClass[]): string | null {
  return autoAnnotateClass(readStorage<unknown>(autoClassKey(projectId), null), classes);
}

/** The classes by name, and the colour the canvas draws each with (`colorsKey` changes with them). */
export function classColors(classes: readonly ProjectClass[]) {
  const classByName = new Map(classes.map((c) => [c.name, c]));
  const classColor = (name: string) => classByName.get(name)?.color ?? FALLBACK_CLASS_COLOR;
  return { classByName, classColor, colorsKey: classes.map((c) => `${c.name}:${c.color}`).join('|') };
}

/** The pointer over the canvas: move over a shape with Select, a crosshair for drawing. */
export function toolCursor(tool: ToolName, hovered: boolean): string {
  return hovered && tool === 'select' ? 'move' : tool === 'select' ? 'default' : 'crosshair';
}

export interface ToolsState {
  tool: ToolName;
  /** A drawing tool has no class to use and the role may not add one: the dialog that says so. */
  noClassesOpen: boolean;
  /** The Add Class dialog is open for this class tool (null: closed). */
  addClassType: ClassTool | null;
  /** Bumped when Auto-Annotate needs its class chosen: the bar's picker opens. */
  autoAsk: number;
}

/** What the screen tells the tools as it renders. */
export interface ToolsContext {
  projectId: string;
  classes: readonly ProjectClass[];
  /** A role without annotations.write: only the view tools. */
  readOnly: boolean;
  /** The role may add classes (classes.edit). */
  canEditClasses: boolean;
  /** The image open (Auto-Annotate prepares it when chosen). */
  imageFilename: string;
  /** The session's Auto-Annotate. */
  auto: Pick<AutoAnnotateSession, 'activate' | 'deactivate'>;
}

export interface ToolsOptions {
  editor: Editor;
  /** The tools a read-only role may use (the palette's VIEW_TOOLS). */
  viewTools: readonly ToolName[];
  /** PATCH the project's classes (api.updateProject by default). */
  updateClasses?(projectId: string, classes: ProjectClass[]): Promise<{ project: Project }>;
  /** Short messages for the user (the app's toasts by default). */
  tell?: Tell;
}

/** The tools of the shapes `cls` may not be given, for the word after a relabel ('the box tool', 'the box or mask tools'). */
function listOfTools(shapes: readonly EditorAnnotation[], cls: ProjectClass): string {
  const tools = [...new Set(shapes.map((s) => classToolOfShape(s.type)))].filter((t) => !classAllowsTool(cls, t));
  const names = tools.map((t) => TYPE_NAMES[t].toLowerCase());
  return names.length === 1 ? `the ${names[0]} tool` : `the ${names.slice(0, -1).join(', ')} or ${names.at(-1)} tools`;
}

export class ToolsAndClasses {
  private state: ToolsState = { tool: 'select', noClassesOpen: false, addClassType: null, autoAsk: 0 };
  private readonly listeners = new Set<() => void>();
  private readonly projectListeners = new Set<(project: Project) => void>();
  private readonly lastClassByTool = new Map<ClassTool, string>();
  /** A mask waits for its class: choosing one accepts it. */
  private acceptOnChoice = false;
  private ctx: ToolsContext | null = null;
  private classByName = new Map<string, ProjectClass>();
  private readonly editor: Editor;
  private readonly tell: Tell;
  private readonly updateClasses: NonNullable<ToolsOptions['updateClasses']>;

  constructor(private readonly opts: ToolsOptions) {
    this.editor = opts.editor;
    this.tell = opts.tell ?? toast;
    this.updateClasses = opts.updateClasses ?? ((id, classes) => api.updateProject(id, { classes }));
  }

  getState = (): ToolsState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The project, the role and the image as the screen has them now. */
  setContext(ctx: ToolsContext): void {
    if (ctx.classes !== this.ctx?.classes) this.classByName = new Map(ctx.classes.map((c) => [c.name, c]));
    this.ctx = ctx;
  }

  /** A drawing tool used without a class offers one; returns the function that stops listening. */
  start(): () => void {
    return this.editor.onEvent((e) => {
      if (e.type === 'needs-class') this.askForClass(TOOL_CLASS_TOOL[e.tool === 'pan' ? 'auto' : (e.tool as ToolName)] ?? 'box');
    });
  }

  /** A class was added from the editor: the project as the server now has it. */
  onProjectUpdated(fn: (project: Project) => void): () => void {
    this.projectListeners.add(fn);
    return () => this.projectListeners.delete(fn);
  }

  chooseTool(t: ToolName): void {
    const { readOnly, auto, imageFilename } = this.context();
    if (readOnly && !this.opts.viewTools.includes(t)) return;
    this.set({ tool: t });
    this.acceptOnChoice = false;
    this.editor.setTool(ENGINE_TOOL[t]);
    this.pickClassFor(TOOL_CLASS_TOOL[t], t);
    if (t === 'auto') auto.activate(imageFilename);
    else auto.deactivate();
  }

  /** Made read-only while a drawing tool was chosen: back to Select. */
  keepToViewTools(): void {
    if (this.context().readOnly && !this.opts.viewTools.includes(this.state.tool)) this.chooseTool('select');
  }

  /** The class for new shapes of the current tool (Auto-Annotate's is kept per project). */
  setToolClass(cls: ProjectClass): void {
    const tool = TOOL_CLASS_TOOL[this.state.tool];
    if (tool) this.lastClassByTool.set(tool, cls.name);
    this.editor.setActiveClass(cls.name);
    if (this.state.tool === 'auto' && classAllowsTool(cls, 'mask')) {
      writeStorage(autoClassKey(this.context().projectId), cls.name);
      if (this.acceptOnChoice) this.editor.auto.accept();
    }
    this.acceptOnChoice = false;
  }

  /** The picker's choice: Select relabels the selection; a drawing tool takes the class for new shapes. */
  chooseClass(name: string): void {
    const cls = this.classByName.get(name);
    if (!cls) return;
    if (this.state.tool === 'select') this.relabel(this.selectedAnnotations(), cls);
    else this.setToolClass(cls);
  }

  /**
   * A shape drawn with `tool` needs a class. Auto-Annotate with mask classes to choose from opens
   * its class picker; otherwise the Add Class dialog opens in place for the tool (a role that may
   * not edit classes is told so, with the way to the Classes tab).
   */
  askForClass(tool: ClassTool): void {
    const { classes } = this.context();
    if (this.state.tool === 'auto' && classesForTool(classes, 'mask').length > 0) {
      this.tell('Choose a class for the mask', 'neutral', MESSAGE_MS);
      this.acceptOnChoice = true;
      this.set({ autoAsk: this.state.autoAsk + 1 });
      return;
    }
    this.offerNewClass(tool);
  }

  /** The picker's Add class: the Add Class dialog for `tool`, or the word that this role may not add one. */
  offerNewClass(tool: ClassTool): void {
    if (!this.context().canEditClasses) this.set({ noClassesOpen: true });
    else this.set({ addClassType: tool });
  }

  setNoClassesOpen(open: boolean): void {
    this.set({ noClassesOpen: open });
  }

  closeAddClass(): void {
    this.set({ addClassType: null });
  }

  /** Adds `c` to the project, and uses it at once (relabels the selection, or the tool takes it); null, or why it failed. */
  async addClass(c: ProjectClass): Promise<string | null> {
    const { projectId, classes } = this.context();
    const tool = this.state.tool;
    try {
      const res = await this.updateClasses(projectId, [...classes, c]);
      for (const fn of [...this.projectListeners]) fn(res.project);
      const classTool = TOOL_CLASS_TOOL[tool];
      if (tool === 'select') this.relabel(this.selectedAnnotations(), c);
      else if (classTool && classAllowsTool(c, classTool)) this.setToolClass(c);
      this.tell(`Class '${c.name}' added`, 'success', MESSAGE_MS);
      return null;
    } catch (err) {
      return serverMessage(err, 'Failed to add the class. Please try again.');
    }
  }

  /** The shapes of `ids` that are in the document (the view's selection). */
  shapesOf(ids: Iterable<string>): EditorAnnotation[] {
    return [...ids].map((id) => this.editor.getAnnotation(id)).filter((a): a is EditorAnnotation => Boolean(a));
  }

  /**
   * The picker: a drawing tool lists the classes it may draw (`type`: its class tool); Select with
   * a selection lists the classes every selected shape may be given (`listed`), and relabels it.
   */
  picker(tool: ToolName, selectedShapes: readonly EditorAnnotation[], view: Pick<ViewState, 'activeClass'>) {
    const first = selectedShapes[0];
    const { classes } = this.context();
    const type: ClassTool | null = tool === 'select' ? sharedClassTool(selectedShapes) : (TOOL_CLASS_TOOL[tool] ?? null);
    const listed = tool === 'select' ? classesForShapes(classes, selectedShapes) : classesForTool(classes, type);
    const selectionClass = first !== undefined && selectedShapes.every((a) => a.class === first.class) ? first.class : null;
    return {
      // Auto-Annotate's class is chosen in its bar.
      show: (tool !== 'select' && tool !== 'auto') || (tool === 'select' && selectedShapes.length > 0),
      type,
      listed,
      value: tool === 'select' ? selectionClass : view.activeClass,
      placeholder: tool === 'select' && selectedShapes.length > 1 ? 'Mixed classes' : 'Choose a class',
    };
  }

  /** Gives the shapes `cls` (one undo step); shapes drawn with a tool it does not allow are left alone, with a word. */
  relabel(shapes: readonly EditorAnnotation[], cls: ProjectClass): void {
    if (this.context().readOnly || shapes.length === 0) return;
    const { ids, misfits } = relabelPlan(shapes, cls);
    if (ids.length > 0) this.editor.execute('set-class', { ids, class: cls.name });
    if (misfits > 0) this.tell(`${misfits} annotation(s) left as they are: '${cls.name}' cannot be drawn with ${listOfTools(shapes, cls)}`, 'neutral', MESSAGE_MS);
  }

  /** A row's class menu: one shape relabelled (one undo step). */
  setClassOf(id: string, name: string): void {
    const a = this.editor.getAnnotation(id);
    const cls = this.classByName.get(name);
    if (a && cls) this.relabel([a], cls);
  }

  /** 1-9: the project's n-th class, whatever the tool: relabels the selection, else the drawing tool takes it (when it may draw it). */
  classByNumber(n: number): void {
    const { classes, readOnly } = this.context();
    const shapes = this.selectedAnnotations();
    const cls = numberKeyClass(classes, n);
    if (shapes.length > 0) {
      if (readOnly) return;
      if (!cls) return this.tell(`There is no class ${n}`, 'neutral', MESSAGE_MS);
      return this.relabel(shapes, cls);
    }
    const tool = TOOL_CLASS_TOOL[this.state.tool];
    if (!tool) return;
    if (!cls) return this.tell(`There is no class ${n}`, 'neutral', MESSAGE_MS);
    if (!classAllowsTool(cls, tool)) return this.tell(`'${cls.name}' cannot be drawn with the ${TYPE_NAMES[tool].toLowerCase()} tool`, 'neutral', MESSAGE_MS);
    this.setToolClass(cls);
  }

  /** C / Shift+C: the next (previous) class every selected shape may be given; without a selection, the tool may draw. */
  cycleClass(step: 1 | -1): void {
    const { classes, readOnly } = this.context();
    const shapes = this.selectedAnnotations();
    if (shapes.length > 0) {
      if (readOnly) return;
      const current = shapes.every((a) => a.class === shapes[0]!.class) ? shapes[0]!.class : null;
      const cls = cycledClass(classesForShapes(classes, shapes), current, step);
      return cls ? this.relabel(shapes, cls) : this.tell('No class fits every selected shape: choose one from the picker', 'neutral', MESSAGE_MS);
    }
    const tool = TOOL_CLASS_TOOL[this.state.tool];
    const cls = tool ? cycledClass(classesForTool(classes, tool), this.editor.getView().activeClass, step) : null;
    if (cls) this.setToolClass(cls);
  }

  private selectedAnnotations(): EditorAnnotation[] {
    return this.shapesOf(this.editor.getSelectedIds());
  }

  /** The class a drawing tool starts with: the active one if the tool may draw it, else the one last used with its class tool, else the first it may. */
  private pickClassFor(tool: ClassTool | undefined, t: ToolName): void {
    if (!tool) return;
    const { classes, projectId } = this.context();
    // Auto-Annotate asks which class to use (once per project) when there is a choice, rather than taking the first.
    if (t === 'auto') {
      this.editor.setActiveClass(storedAutoClass(projectId, classes));
      return;
    }
    const allows = (name: string | null | undefined) => Boolean(name && this.classByName.has(name) && classAllowsTool(this.classByName.get(name)!, tool));
    const active = this.editor.getView().activeClass;
    if (allows(active)) return;
    const remembered = this.lastClassByTool.get(tool);
    const choice = (allows(remembered) ? remembered! : null) ?? classesForTool(classes, tool)[0]?.name ?? null;
    this.editor.setActiveClass(choice);
  }

  private context(): ToolsContext {
    if (!this.ctx) throw new Error('ToolsAndClasses: setContext first');
    return this.ctx;
  }

  private set(patch: Partial<ToolsState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l();
  }
}
