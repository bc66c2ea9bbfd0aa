// The palette's tool and the class picker, as React reads them: the tools logic (the class each
// tool starts with, relabelling, adding a class, asking for one) is the session's
// (src/app/editor-session/tools.ts); this tells it the project's classes, the role and the image,
// keeps the project's cached copy when a class is added, and gives the screen the classes'
// colours and their attributes' defaults for new shapes (issue 19).
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { Project, ProjectClass } from '../../../../contract/projects';
import type { ViewState } from '../../../../engine';
import { useCan } from '../../../stores/permissions';
import { useSelection } from '../../../stores/selection';
import { projectKey } from '../../../stores/projectQueries';
import type { EditorSession } from '../../../editor-session/session';
import { classColors, toolCursor, ToolsAndClasses, type ToolName } from '../../../editor-session/tools';
import { useClassAttributeDefaults } from '../AttributesPanel';
import { useClassSkeletons } from './useClassSkeletons';
import { VIEW_TOOLS } from '../ToolPalette';

export interface ToolsOptions {
  session: EditorSession;
  project: Project;
  imageFilename: string;
  readOnly: boolean;
  view: ViewState;
  documentVersion: number;
}

export function useToolsAndClasses({ session, project, imageFilename, readOnly, view, documentVersion }: ToolsOptions) {
  const { editor, auto } = session;
  const qc = useQueryClient();
  const updateSelection = useSelection((s) => s.update);
  const canEditClasses = useCan('classes.edit');
  const classes = project.classes;
  // One per screen, like the Editor: the tool and the classes last used stay across images.
  const [model] = useState(() => new ToolsAndClasses({ editor, viewTools: VIEW_TOOLS }));
  model.setContext({ projectId: project.id, classes, readOnly, canEditClasses, imageFilename, auto });
  const { tool, noClassesOpen, addClassType, autoAsk } = useSyncExternalStore(model.subscribe, model.getState);
  const { classColor, colorsKey } = useMemo(() => classColors(classes), [classes]);
  // New shapes get their class's default attributes; a class change conforms them (issue 19).
  useClassAttributeDefaults(editor, classes);
  // The Keypoint tool draws skeleton classes as one instance of named points (issue 33).
  useClassSkeletons(editor, classes);

  // A drawing tool used without a class offers one.
  useEffect(() => model.start(), [model]);
  // Made read-only while a drawing tool was chosen: back to Select.
  useEffect(() => model.keepToViewTools(), [model, readOnly]);
  // A class added from the editor: the project's cached copy and the selection take it.
  useEffect(
    () =>
      model.onProjectUpdated((p) => {
        qc.setQueryData(projectKey(p.id), p);
        updateSelection(p);
      }),
    [model, qc, updateSelection],
  );

  const actions = useMemo(
    () => ({
      chooseTool: (t: ToolName) => model.chooseTool(t),
      classByNumber: (n: number) => model.classByNumber(n),
      cycleClass: (step: 1 | -1) => model.cycleClass(step),
      setClassOf: (id: string, name: string) => model.setClassOf(id, name),
      addClass: (c: ProjectClass) => model.addClass(c),
      setNoClassesOpen: (open: boolean) => model.setNoClassesOpen(open),
      closeAddClass: () => model.closeAddClass(),
    }),
    [model],
  );

  // The picker: drawing tools list their type; Select with a selection relabels it.
  const selectedShapes = useMemo(() => model.shapesOf(view.selected), [model, view.selected, documentVersion]); // eslint-disable-line react-hooks/exhaustive-deps
  const shown = model.picker(tool, selectedShapes, view);
  const picker = {
    ...shown,
    onChoose: (name: string) => model.chooseClass(name),
    onAddClass: () => model.offerNewClass(shown.type ?? 'box'),
    /** Changes when the picker should open by itself (Auto-Annotate needs its class). */
    attention: autoAsk,
  };

  return { ...actions, tool, cursor: toolCursor(tool, Boolean(view.hovered)), picker, classColor, colorsKey, noClassesOpen, addClassType };
}
