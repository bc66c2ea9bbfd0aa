// The palette's tool and the class picker: which engine tool each palette tool drives, the class a
// drawing tool starts with (the one last used for its type; Auto-Annotate's is asked for once and
// kept per project on this device), relabelling a selection (the picker, the number keys, C),
// adding a class from the editor (in place, also in a project with none yet), and the dialogs that
// ask for a class when there is none to use (the engine's 'needs-class'). The classes' colours for
// the canvas, and their attributes' defaults for new shapes (issue 19).
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { FALLBACK_CLASS_COLOR, type AnnotationType, type Project, type ProjectClass } from '../../../../contract/projects';
import type { EditorAnnotation, Editor, ToolId, ViewState } from '../../../../engine';
import { api, serverMessage } from '../../../api/client';
import { readStorage, writeStorage } from '../../../lib/storage';
import { useCan } from '../../../stores/permissions';
import { useSelection } from '../../../stores/selection';
import { toast } from '../../../stores/toast';
import { projectKey } from '../../../stores/projectQueries';
import type { EditorSession } from '../../../editor-session/session';
import { useClassAttributeDefaults } from '../AttributesPanel';
import { autoAnnotateClass, classTypeOfShape, cycledClass, numberKeyClass, relabelPlan, sharedClassType, TYPE_NAMES } from '../../../editor-session/classKeys';
import type { EditorToolId } from '../hotkeys';
import { VIEW_TOOLS } from '../ToolPalette';
import { MESSAGE_MS } from '../../../editor-session/session';

/** As long as the screen's other short messages (the session's). */
export { MESSAGE_MS };

/** The engine tool behind each palette tool. */
const ENGINE_TOOL: Record<EditorToolId, ToolId> = { select: 'select', auto: 'auto', box: 'box', polygon: 'polygon', polyline: 'polyline', keypoint: 'keypoint' };
/** The class type each drawing tool needs (assisted masks are listed as polygons). */
export const TOOL_CLASS_TYPE: Partial<Record<EditorToolId, AnnotationType>> = { box: 'box', polygon: 'polygon', polyline: 'polyline', keypoint: 'keypoint', auto: 'polygon' };

function classTypeOf(a: EditorAnnotation): AnnotationType {
  return classTypeOfShape(a.type);
}

/** Where Auto-Annotate's class is kept, per project, on this device. */
export const autoClassKey = (projectId: string) => `vellum.autoAnnotate.class.${projectId}`;

/** Auto-Annotate's class in this project: the one chosen (kept on this device), or the only polygon class. */
export function storedAutoClass(projectId: string, classes: readonly ProjectClass[]): string | null {
  return autoAnnotateClass(readStorage<unknown>(autoClassKey(projectId), null), classes);
}

export interface ToolsOptions {
  session: EditorSession;
  project: Project;
  imageFilename: string;
  readOnly: boolean;
  view: ViewState;
  documentVersion: number;
}

/** The classes by name, and the colour the canvas draws each with (`colorsKey` changes with them). */
function useClassColors(classes: readonly ProjectClass[]) {
  const classByName = useMemo(() => new Map(classes.map((c) => [c.name, c])), [classes]);
  const classColor = useCallback((name: string) => classByName.get(name)?.color ?? FALLBACK_CLASS_COLOR, [classByName]);
  return { classByName, classColor, colorsKey: classes.map((c) => `${c.name}:${c.color}`).join('|') };
}

// Long because the tool, the class each tool starts with and the picker depend on each other;
// the class keys' commands are split out (useClassCommands).
export function useToolsAndClasses({ session, project, imageFilename, readOnly, view, documentVersion }: ToolsOptions) {
  const { editor, auto } = session;
  const qc = useQueryClient();
  const updateSelection = useSelection((s) => s.update);
  const [tool, setTool] = useState<EditorToolId>('select');
  const toolRef = useRef(tool);
  toolRef.current = tool;
  const [noClassesOpen, setNoClassesOpen] = useState(false);
  const [addClassType, setAddClassType] = useState<AnnotationType | null>(null);
  const lastClassByType = useRef(new Map<AnnotationType, string>());
  const classes = project.classes;
  const { classByName, classColor, colorsKey } = useClassColors(classes);
  // New shapes get their class's default attributes; a class change conforms them (issue 19).
  useClassAttributeDefaults(editor, classes);

  const canEditClasses = useCan('classes.edit');
  /** Bumped when Auto-Annotate needs its class chosen: the bar's picker opens. */
  const [autoAsk, setAutoAsk] = useState(0);
  /** A mask waits for its class: choosing one accepts it. */
  const acceptOnChoice = useRef(false);

  const pickClassFor = useCallback(
    (type: AnnotationType | undefined, t?: EditorToolId) => {
      if (!type) return;
      // Auto-Annotate asks which class to use (once per project) when there is a choice, rather than taking the first.
      if (t === 'auto') {
        editor.setActiveClass(storedAutoClass(project.id, classes));
        return;
      }
      const active = editor.getView().activeClass;
      if (active && classByName.get(active)?.type === type) return;
      const remembered = lastClassByType.current.get(type);
      const choice = (remembered && classByName.get(remembered)?.type === type ? remembered : null) ?? classes.find((c) => c.type === type)?.name ?? null;
      editor.setActiveClass(choice);
    },
    [editor, classByName, classes, project.id],
  );

  const chooseTool = useCallback(
    (t: EditorToolId) => {
      if (readOnly && !VIEW_TOOLS.includes(t)) return;
      setTool(t);
      acceptOnChoice.current = false;
      editor.setTool(ENGINE_TOOL[t]);
      pickClassFor(TOOL_CLASS_TYPE[t], t);
      if (t === 'auto') auto.activate(imageFilename);
      else auto.deactivate();
    },
    [editor, pickClassFor, auto, imageFilename, readOnly],
  );
  // Made read-only while a drawing tool was chosen: back to Select.
  useEffect(() => {
    if (readOnly && !VIEW_TOOLS.includes(toolRef.current)) chooseTool('select');
  }, [readOnly, chooseTool]);

  /** The class for new shapes of the current tool (Auto-Annotate's is kept per project). */
  const setToolClass = useCallback(
    (cls: ProjectClass) => {
      lastClassByType.current.set(cls.type, cls.name);
      editor.setActiveClass(cls.name);
      if (toolRef.current === 'auto' && cls.type === 'polygon') {
        writeStorage(autoClassKey(project.id), cls.name);
        if (acceptOnChoice.current) editor.acceptProposal();
      }
      acceptOnChoice.current = false;
    },
    [editor, project.id],
  );

  const { selectedAnnotations, relabel, setClassOf, classByNumber, cycleClass } = useClassCommands({ editor, classes, classByName, readOnly, toolRef, setToolClass });

  const chooseClass = (name: string) => {
    const cls = classByName.get(name);
    if (!cls) return;
    if (tool === 'select') relabel(selectedAnnotations(), cls);
    else setToolClass(cls);
  };

  /**
   * A shape of `type` needs a class. Auto-Annotate with polygon classes to choose from opens its
   * class picker; otherwise the Add Class dialog opens in place for the type (a role that may not
   * edit classes is told so, with the way to the Classes tab).
   */
  const askForClass = useCallback(
    (type: AnnotationType) => {
      if (toolRef.current === 'auto' && classes.some((c) => c.type === 'polygon')) {
        toast('Choose a class for the mask', 'neutral', MESSAGE_MS);
        acceptOnChoice.current = true;
        setAutoAsk((n) => n + 1);
        return;
      }
      if (!canEditClasses) return setNoClassesOpen(true);
      setAddClassType(type);
    },
    [classes, canEditClasses],
  );
  // A drawing tool was used without a class: offer one.
  useEffect(
    () =>
      editor.onEvent((e) => {
        if (e.type === 'needs-class') askForClass(TOOL_CLASS_TYPE[e.tool === 'pan' ? 'auto' : (e.tool as EditorToolId)] ?? 'box');
      }),
    [editor, askForClass],
  );

  const addClass = async (c: ProjectClass): Promise<string | null> => {
    try {
      const res = await api.updateProject(project.id, { classes: [...classes, c] });
      qc.setQueryData(projectKey(project.id), res.project);
      updateSelection(res.project);
      lastClassByType.current.set(c.type, c.name);
      if (tool === 'select') relabel(selectedAnnotations(), c);
      else if (TOOL_CLASS_TYPE[tool] === c.type) setToolClass(c);
      toast(`Class '${c.name}' added`, 'success', MESSAGE_MS);
      return null;
    } catch (err) {
      return serverMessage(err, 'Failed to add the class. Please try again.');
    }
  };

  // The picker: drawing tools list their type; Select with a selection relabels it.
  const selectedShapes = useMemo(() => [...view.selected].map((id) => editor.getAnnotation(id)).filter((a): a is EditorAnnotation => Boolean(a)), [view.selected, editor, documentVersion]); // eslint-disable-line react-hooks/exhaustive-deps
  const pickerType: AnnotationType | null =
    tool === 'select' ? (selectedShapes.length && selectedShapes.every((a) => classTypeOf(a) === classTypeOf(selectedShapes[0]!)) ? classTypeOf(selectedShapes[0]!) : null) : (TOOL_CLASS_TYPE[tool] ?? null);
  const selectionClass = selectedShapes.length && selectedShapes.every((a) => a.class === selectedShapes[0]!.class) ? selectedShapes[0]!.class : null;
  const picker = {
    // Auto-Annotate's class is chosen in its bar.
    show: (tool !== 'select' && tool !== 'auto') || (tool === 'select' && selectedShapes.length > 0),
    type: pickerType,
    value: tool === 'select' ? selectionClass : view.activeClass,
    placeholder: tool === 'select' ? (selectedShapes.length > 1 ? 'Mixed classes' : 'Choose a class') : 'Choose a class',
    onChoose: chooseClass,
    onAddClass: () => (canEditClasses ? setAddClassType(pickerType ?? 'box') : setNoClassesOpen(true)),
    /** Changes when the picker should open by itself (Auto-Annotate needs its class). */
    attention: autoAsk,
  };

  const cursor = view.hovered && tool === 'select' ? 'move' : tool === 'select' ? 'default' : 'crosshair';

  return { tool, toolRef, chooseTool, cursor, picker, classColor, colorsKey, askForClass, addClass, noClassesOpen, setNoClassesOpen, addClassType, closeAddClass: () => setAddClassType(null), classByNumber, cycleClass, canEditClasses, setClassOf };
}

/** The class keys' and menus' commands: relabel shapes (one undo step), 1-9 and C. */
function useClassCommands({
  editor,
  classes,
  classByName,
  readOnly,
  toolRef,
  setToolClass,
}: {
  editor: Editor;
  classes: readonly ProjectClass[];
  classByName: ReadonlyMap<string, ProjectClass>;
  readOnly: boolean;
  toolRef: { readonly current: EditorToolId };
  setToolClass(cls: ProjectClass): void;
}) {
  const selectedAnnotations = useCallback(() => editor.getSelectedIds().map((id) => editor.getAnnotation(id)).filter((a): a is EditorAnnotation => Boolean(a)), [editor]);

  /** Gives the shapes `cls` (one undo step); shapes of another type are left alone, with a word. */
  const relabel = useCallback(
    (shapes: readonly EditorAnnotation[], cls: ProjectClass) => {
      if (readOnly || shapes.length === 0) return;
      const { ids, misfits } = relabelPlan(shapes, cls);
      if (ids.length > 0) editor.execute('set-class', { ids, class: cls.name });
      if (misfits > 0) toast(`${misfits} annotation(s) left as they are: '${cls.name}' is a ${TYPE_NAMES[cls.type].toLowerCase()} class`, 'neutral', MESSAGE_MS);
    },
    [editor, readOnly],
  );

  /** A row's class menu: one shape relabelled (one undo step). */
  const setClassOf = useCallback(
    (id: string, name: string) => {
      const a = editor.getAnnotation(id);
      const cls = classByName.get(name);
      if (a && cls) relabel([a], cls);
    },
    [editor, classByName, relabel],
  );

  /** 1-9: with a selection, relabel it to the n-th class the picker lists for it; else the n-th class of the tool's type for new shapes. */
  const classByNumber = useCallback(
    (n: number) => {
      const shapes = selectedAnnotations();
      if (shapes.length > 0) {
        if (readOnly) return;
        const type = sharedClassType(shapes);
        const cls = numberKeyClass(classes, type, n);
        if (!cls) return void toast(`There is no class ${n}${type ? ` for ${TYPE_NAMES[type].toLowerCase()} shapes` : ''}`, 'neutral', MESSAGE_MS);
        return relabel(shapes, cls);
      }
      const type = TOOL_CLASS_TYPE[toolRef.current];
      if (!type) return;
      const cls = numberKeyClass(classes, type, n);
      if (!cls) return void toast(`There is no ${TYPE_NAMES[type].toLowerCase()} class ${n}`, 'neutral', MESSAGE_MS);
      setToolClass(cls);
    },
    [selectedAnnotations, readOnly, classes, relabel, setToolClass, toolRef],
  );

  /** C / Shift+C: the selection's next (previous) class of its type; without a selection, the tool's. */
  const cycleClass = useCallback(
    (step: 1 | -1) => {
      const shapes = selectedAnnotations();
      if (shapes.length > 0) {
        if (readOnly) return;
        const type = sharedClassType(shapes);
        if (!type) return void toast('The selection mixes shape types: choose a class from the picker', 'neutral', MESSAGE_MS);
        const current = shapes.every((a) => a.class === shapes[0]!.class) ? shapes[0]!.class : null;
        const cls = cycledClass(classes, type, current, step);
        return cls ? relabel(shapes, cls) : undefined;
      }
      const type = TOOL_CLASS_TYPE[toolRef.current];
      const cls = type ? cycledClass(classes, type, editor.getView().activeClass, step) : null;
      if (cls) setToolClass(cls);
    },
    [selectedAnnotations, readOnly, classes, relabel, setToolClass, editor, toolRef],
  );

  return { selectedAnnotations, relabel, setClassOf, classByNumber, cycleClass };
}
