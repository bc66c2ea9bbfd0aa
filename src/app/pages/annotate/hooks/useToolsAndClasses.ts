// The palette's tool and the class picker: which engine tool each palette tool drives, the class a
// drawing tool starts with (the one last used for its type), relabelling a selection, adding a
// class from the editor, and the dialogs that ask for a class when there is none to use.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AnnotationType, Project, ProjectClass } from '../../../../contract/projects';
import type { EditorAnnotation, Editor, ToolId, ViewState } from '../../../../engine';
import { api, serverMessage } from '../../../api/client';
import { useSelection } from '../../../stores/selection';
import { toast } from '../../../stores/toast';
import { projectKey } from '../../projects/queries';
import type { AutoAnnotateSession } from '../autoAnnotate';
import type { EditorToolId } from '../hotkeys';
import { VIEW_TOOLS } from '../ToolPalette';

/** As long as the screen's other short messages. */
export const MESSAGE_MS = 2000;

/** The engine tool behind each palette tool. */
const ENGINE_TOOL: Record<EditorToolId, ToolId> = { select: 'select', auto: 'auto', box: 'box', polygon: 'polygon', polyline: 'polyline', keypoint: 'keypoint' };
/** The class type each drawing tool needs (assisted masks are listed as polygons). */
export const TOOL_CLASS_TYPE: Partial<Record<EditorToolId, AnnotationType>> = { box: 'box', polygon: 'polygon', polyline: 'polyline', keypoint: 'keypoint', auto: 'polygon' };

function classTypeOf(a: EditorAnnotation): AnnotationType {
  return a.type === 'segmentation' ? 'polygon' : a.type;
}

export interface ToolsOptions {
  editor: Editor;
  project: Project;
  /** The project's classes by name. */
  classByName: ReadonlyMap<string, ProjectClass>;
  imageFilename: string;
  readOnly: boolean;
  auto: AutoAnnotateSession;
  view: ViewState;
  documentVersion: number;
}

export function useToolsAndClasses({ editor, project, classByName, imageFilename, readOnly, auto, view, documentVersion }: ToolsOptions) {
  const qc = useQueryClient();
  const updateSelection = useSelection((s) => s.update);
  const [tool, setTool] = useState<EditorToolId>('select');
  const toolRef = useRef(tool);
  toolRef.current = tool;
  const [noClassesOpen, setNoClassesOpen] = useState(false);
  const [addClassType, setAddClassType] = useState<AnnotationType | null>(null);
  const lastClassByType = useRef(new Map<AnnotationType, string>());
  const classes = project.classes;

  const pickClassFor = useCallback(
    (type: AnnotationType | undefined) => {
      if (!type) return;
      const active = editor.getView().activeClass;
      if (active && classByName.get(active)?.type === type) return;
      const remembered = lastClassByType.current.get(type);
      const choice = (remembered && classByName.get(remembered)?.type === type ? remembered : null) ?? classes.find((c) => c.type === type)?.name ?? null;
      editor.setActiveClass(choice);
    },
    [editor, classByName, classes],
  );

  const chooseTool = useCallback(
    (t: EditorToolId) => {
      if (readOnly && !VIEW_TOOLS.includes(t)) return;
      setTool(t);
      editor.setTool(ENGINE_TOOL[t]);
      pickClassFor(TOOL_CLASS_TYPE[t]);
      if (t === 'auto') auto.activate(imageFilename);
      else auto.deactivate();
    },
    [editor, pickClassFor, auto, imageFilename, readOnly],
  );
  // Made read-only while a drawing tool was chosen: back to Select.
  useEffect(() => {
    if (readOnly && !VIEW_TOOLS.includes(toolRef.current)) chooseTool('select');
  }, [readOnly, chooseTool]);

  const chooseClass = (name: string) => {
    const cls = classByName.get(name);
    if (tool === 'select') {
      editor.setSelectedClass(name);
      return;
    }
    if (cls) lastClassByType.current.set(cls.type, name);
    editor.setActiveClass(name);
  };

  /** A shape of `type` needs a class: without any class, offer to manage them; else to add one. */
  const askForClass = useCallback((type: AnnotationType) => (classes.length === 0 ? setNoClassesOpen(true) : setAddClassType(type)), [classes.length]);

  const addClass = async (c: ProjectClass): Promise<string | null> => {
    try {
      const res = await api.updateProject(project.id, { classes: [...classes, c] });
      qc.setQueryData(projectKey(project.id), res.project);
      updateSelection(res.project);
      lastClassByType.current.set(c.type, c.name);
      if (tool === 'select') editor.setSelectedClass(c.name);
      else if (TOOL_CLASS_TYPE[tool] === c.type) editor.setActiveClass(c.name);
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
    show: tool !== 'select' || selectedShapes.length > 0,
    type: pickerType,
    value: tool === 'select' ? selectionClass : view.activeClass,
    placeholder: tool === 'select' ? (selectedShapes.length > 1 ? 'Mixed classes' : 'Choose a class') : 'Choose a class',
    onChoose: chooseClass,
    onAddClass: () => (classes.length === 0 && tool !== 'select' ? setNoClassesOpen(true) : setAddClassType(pickerType ?? 'box')),
  };

  const cursor = view.hovered && tool === 'select' ? 'move' : tool === 'select' ? 'default' : 'crosshair';

  return { tool, toolRef, chooseTool, cursor, picker, askForClass, addClass, noClassesOpen, setNoClassesOpen, addClassType, closeAddClass: () => setAddClassType(null) };
}
