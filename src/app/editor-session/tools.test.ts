// The palette's tool and the class picker with the real engine: the class a drawing tool starts
// with (the one last used with its class tool), the number keys picking the project's n-th class
// whatever the tool (issue 33), relabelling from the picker and the keys, a read-only role kept to Select, the dialogs a drawing tool without a class opens,
// and a class added from the editor used at once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Project, ProjectClass } from '../../contract/projects';
import { Editor, type EditorAnnotation } from '../../engine';
import { autoClassKey, ToolsAndClasses, type ToolsContext } from './tools';
import { MemoryStorage } from '../../../tests/support/sessionTestkit';

const cls = (name: string, type: ProjectClass['type'], color = '#112233'): ProjectClass => ({ name, type, color }) as ProjectClass;
const CLASSES = [cls('car', 'box'), cls('truck', 'box'), cls('road', 'polygon'), cls('lane', 'polygon'), cls('edge', 'polyline')];
const boxShape = (id: string, c: string): EditorAnnotation => ({ id, type: 'box', class: c, x: 10, y: 10, width: 50, height: 50 }) as EditorAnnotation;
const lineShape = (id: string, c: string): EditorAnnotation => ({ id, type: 'polyline', class: c, points: [[0, 0], [40, 40]] }) as EditorAnnotation;

function setup(over: Partial<ToolsContext> = {}, shapes: EditorAnnotation[] = []) {
  const editor = new Editor();
  editor.setImageSize({ width: 1000, height: 800 });
  editor.setViewport({ width: 1000, height: 800 });
  editor.load(shapes);
  const told: string[] = [];
  const autoCalls: string[] = [];
  const updates: string[][] = [];
  const tools = new ToolsAndClasses({
    editor,
    viewTools: ['select'],
    tell: (m) => void told.push(m),
    updateClasses: async (projectId, classes) => (updates.push(classes.map((c) => c.name)), { project: { id: projectId, classes } as Project }),
  });
  const ctx: ToolsContext = {
    projectId: 'p-1',
    classes: CLASSES,
    readOnly: false,
    canEditClasses: true,
    imageFilename: 'lot.png',
    auto: { activate: (name) => void autoCalls.push(`on ${name}`), deactivate: () => void autoCalls.push('off') },
    ...over,
  };
  tools.setContext(ctx);
  const stop = tools.start();
  const active = () => editor.getView().activeClass;
  const click = (x: number, y: number) => {
    editor.pointerDown({ x, y });
    editor.pointerUp({ x, y });
  };
  return { editor, tools, ctx, told, autoCalls, updates, stop, active, click };
}

describe('the tools and the class picker', () => {
  beforeEach(() => {
    (globalThis as { window?: unknown }).window = { localStorage: new MemoryStorage() };
  });
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it('a drawing tool starts with the class last used for its type, as before', () => {
    const s = setup();
    s.tools.chooseTool('box');
    expect(s.tools.getState().tool).toBe('box');
    expect(s.editor.getView().tool).toBe('box');
    expect(s.active()).toBe('car');
    s.tools.chooseClass('truck');
    expect(s.active()).toBe('truck');
    s.tools.chooseTool('polygon');
    expect(s.active()).toBe('road');
    s.tools.chooseTool('box');
    expect(s.active()).toBe('truck');
    // The picker shows the tool's type and its class.
    expect(s.tools.picker('box', [], s.editor.getView())).toEqual({ show: true, type: 'box', listed: [CLASSES[0], CLASSES[1]], value: 'truck', placeholder: 'Choose a class' });
    s.stop();
  });

  it('number keys pick the project\'s n-th class whatever the tool, C the next one the tool may draw, with a word when it may not', () => {
    const s = setup();
    s.tools.chooseTool('polygon');
    s.tools.classByNumber(4);
    expect(s.active()).toBe('lane');
    s.tools.cycleClass(1);
    expect(s.active()).toBe('road');
    s.tools.classByNumber(1);
    expect(s.active()).toBe('road');
    expect(s.told).toEqual(["'car' cannot be drawn with the polygon tool"]);
    s.tools.classByNumber(9);
    expect(s.told.at(-1)).toBe('There is no class 9');
    s.stop();
  });

  it('one class drawn with the box and the polygon tools: key 1 picks it with both, and both shapes take it', () => {
    const person: ProjectClass = { name: 'person', color: '#F07575', tools: ['box', 'polygon'] };
    const s = setup({ classes: [person, ...CLASSES] }, [boxShape('a', 'car')]);
    for (const tool of ['box', 'polygon'] as const) {
      s.tools.chooseTool(tool);
      s.tools.classByNumber(1);
      expect(s.active()).toBe('person');
      expect(s.tools.picker(tool, [], s.editor.getView()).listed.map((c) => c.name)).toContain('person');
    }
    s.tools.chooseTool('polyline');
    expect(s.active()).toBe('edge'); // person may not be drawn as a polyline
    s.tools.chooseTool('select');
    s.editor.select(['a']);
    s.tools.classByNumber(1);
    expect(s.editor.getAnnotation('a')!.class).toBe('person');
    s.stop();
  });

  it('with Select, the picker relabels the selection in one undo step and leaves shapes the class may not be drawn as', () => {
    const s = setup({}, [boxShape('a', 'car'), boxShape('b', 'car'), lineShape('l', 'edge')]);
    s.editor.select(['a', 'b']);
    const selected = s.tools.shapesOf(s.editor.getView().selected);
    expect(s.tools.picker('select', selected, s.editor.getView())).toEqual({ show: true, type: 'box', listed: [CLASSES[0], CLASSES[1]], value: 'car', placeholder: 'Mixed classes' });
    s.tools.chooseClass('truck');
    expect(['a', 'b'].map((id) => s.editor.getAnnotation(id)!.class)).toEqual(['truck', 'truck']);
    s.editor.undo();
    expect(['a', 'b'].map((id) => s.editor.getAnnotation(id)!.class)).toEqual(['car', 'car']);
    // A mixed selection: 2 is the project's second class; the line keeps its own, with a word.
    s.editor.select(['a', 'l']);
    s.tools.classByNumber(2);
    expect([s.editor.getAnnotation('a')!.class, s.editor.getAnnotation('l')!.class]).toEqual(['truck', 'edge']);
    expect(s.told).toEqual(["1 annotation(s) left as they are: 'truck' cannot be drawn with the polyline tool"]);
    s.editor.select(['a']);
    s.tools.classByNumber(6);
    expect(s.told.at(-1)).toBe('There is no class 6');
    // A row's menu relabels that one shape.
    s.tools.setClassOf('b', 'truck');
    expect(s.editor.getAnnotation('b')!.class).toBe('truck');
    s.stop();
  });

  it('a read-only role keeps Select, and one made read-only with a drawing tool goes back to it', () => {
    const s = setup();
    s.tools.chooseTool('box');
    s.tools.setContext({ ...s.ctx, readOnly: true });
    s.tools.keepToViewTools();
    expect(s.tools.getState().tool).toBe('select');
    expect(s.editor.getView().tool).toBe('select');
    s.tools.chooseTool('polygon');
    expect(s.tools.getState().tool).toBe('select');
    s.stop();
  });

  it('a box drawn without a class opens Add Class for boxes, or says the role may not add one', () => {
    const s = setup({ classes: [cls('road', 'polygon')] });
    s.tools.chooseTool('box');
    expect(s.active()).toBeNull();
    s.click(100, 100);
    expect(s.tools.getState().addClassType).toBe('box');
    s.tools.closeAddClass();
    s.tools.setContext({ ...s.ctx, classes: [cls('road', 'polygon')], canEditClasses: false });
    s.click(100, 100);
    expect(s.tools.getState()).toMatchObject({ addClassType: null, noClassesOpen: true });
    s.stop();
  });

  it('a class added from the editor is saved to the project and taken by the tool at once', async () => {
    const s = setup({ classes: [cls('road', 'polygon')] });
    const projects: string[][] = [];
    s.tools.onProjectUpdated((p) => projects.push(p.classes.map((c) => c.name)));
    s.tools.chooseTool('box');
    expect(await s.tools.addClass(cls('bus', 'box'))).toBeNull();
    expect(s.updates).toEqual([['road', 'bus']]);
    expect(projects).toEqual([['road', 'bus']]);
    expect(s.active()).toBe('bus');
    expect(s.told).toEqual(["Class 'bus' added"]);
    s.stop();
  });

  it("Auto-Annotate takes the project's class kept on this device, and is told the image", () => {
    const s = setup();
    s.tools.chooseTool('auto');
    expect(s.active()).toBeNull(); // two polygon classes: it asks
    s.tools.chooseClass('lane');
    expect(window.localStorage.getItem(autoClassKey('p-1'))).toBe('"lane"');
    s.tools.chooseTool('select');
    s.tools.chooseTool('auto');
    expect(s.active()).toBe('lane');
    expect(s.autoCalls).toEqual(['on lot.png', 'off', 'on lot.png']);
    // Its class is chosen in its bar, not in the picker.
    expect(s.tools.picker('auto', [], s.editor.getView()).show).toBe(false);
    s.stop();
  });
});
