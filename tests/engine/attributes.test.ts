// Attributes in the engine (issue 19): update-attributes sets named values on one or many shapes
// as one undo entry, keeping other entries; with the app's policy (contract conformAttributes)
// new shapes get their class's defaults and a class change conforms the attributes.
import { describe, expect, it } from 'vitest';
import { Editor } from '../../src/engine';
import { conformAttributes } from '../../src/contract/annotations-attributes';
import type { ProjectClass } from '../../src/contract/projects';
import { box, keypoint, TestEditor } from './helpers';

const classes = new Map<string, ProjectClass>([
  [
    'car',
    {
      name: 'car',
      type: 'box',
      color: '#F07575',
      attributes: [
        { name: 'colour', kind: 'select', options: ['red', 'blue'], default: 'blue' },
        { name: 'occluded', kind: 'checkbox' },
        { name: 'doors', kind: 'number', default: 4 },
      ],
    },
  ],
  ['truck', { name: 'truck', type: 'box', color: '#ACF6E7', attributes: [{ name: 'colour', kind: 'select', options: ['red', 'green'] }, { name: 'axles', kind: 'number', default: 2 }] }],
  ['tree', { name: 'tree', type: 'box', color: '#75F0A6' }],
]);
const policy = (cls: string, current: readonly unknown[]) => conformAttributes(classes.get(cls), current) as never;

describe('update-attributes', () => {
  it('sets a value on every selected shape as one undo entry, keeping their other entries; undo and redo', () => {
    const e = new Editor();
    e.load([
      { ...box('a', 0, 0, 20, 20), attributes: [{ name: 'colour', value: 'red' }, { name: 'doors', value: 2 }] },
      { ...box('b', 30, 0, 20, 20), attributes: [{ name: 'doors', value: 5 }, 'free note'] },
      keypoint('k', 5, 5),
    ]);
    const before = structuredClone(e.getDocument());
    e.execute('update-attributes', { ids: ['a', 'b'], values: { colour: 'blue' } });
    expect(e.getUndoLabels()).toEqual(['Set colour of 2 annotation(s)']);
    const byId = (id: string) => e.getAnnotations().find((a) => a.id === id)!;
    expect(byId('a').attributes).toEqual([{ name: 'colour', value: 'blue' }, { name: 'doors', value: 2 }]);
    expect(byId('b').attributes).toEqual([{ name: 'doors', value: 5 }, 'free note', { name: 'colour', value: 'blue' }]);
    expect(byId('k').attributes).toEqual([]);
    e.undo();
    expect(e.getDocument()).toEqual(before);
    e.redo();
    expect(byId('a').attributes).toEqual([{ name: 'colour', value: 'blue' }, { name: 'doors', value: 2 }]);
  });

  it('records nothing when every shape already has the value', () => {
    const e = new Editor();
    e.load([{ ...box('a', 0, 0, 20, 20), attributes: [{ name: 'occluded', value: true }] }]);
    e.execute('update-attributes', { ids: ['a'], values: { occluded: true } });
    expect(e.getUndoLabels()).toEqual([]);
    e.execute('update-attributes', { ids: ['a'], values: { occluded: false } });
    expect(e.getUndoLabels()).toEqual(['Set occluded']);
  });
});

describe('class defaults', () => {
  it('a drawn shape gets its class defaults; one undo entry', () => {
    const t = new TestEditor();
    t.editor.setAttributesPolicy(policy);
    t.editor.setTool('box');
    t.editor.setActiveClass('car');
    t.drag([100, 100], [180, 150]);
    expect(t.only().attributes).toEqual([{ name: 'colour', value: 'blue' }, { name: 'occluded', value: false }, { name: 'doors', value: 4 }]);
    expect(t.editor.getUndoLabels()).toEqual(['Create box']);
    t.editor.setActiveClass('tree');
    t.drag([300, 300], [380, 350]);
    expect(t.editor.getAnnotations()[1]!.attributes).toEqual([]);
  });

  it('without a policy, shapes keep what they were given', () => {
    const t = new TestEditor();
    t.editor.setTool('box');
    t.editor.setActiveClass('car');
    t.drag([100, 100], [180, 150]);
    expect(t.only().attributes).toEqual([]);
  });

  it('a class change keeps the values that fit the new class and fills in its defaults', () => {
    const e = new Editor();
    e.setAttributesPolicy(policy);
    e.load([{ ...box('a', 0, 0, 20, 20), attributes: [{ name: 'colour', value: 'red' }, { name: 'doors', value: 2 }] }, { ...box('b', 30, 0, 20, 20), attributes: [{ name: 'colour', value: 'blue' }] }]);
    e.execute('set-class', { ids: ['a', 'b'], class: 'truck' });
    const [a, b] = e.getAnnotations();
    expect(a!.attributes).toEqual([{ name: 'colour', value: 'red' }, { name: 'axles', value: 2 }]);
    // 'blue' is no truck colour: the first option.
    expect(b!.attributes).toEqual([{ name: 'colour', value: 'red' }, { name: 'axles', value: 2 }]);
    e.undo();
    expect(e.getAnnotations()[0]!.attributes).toEqual([{ name: 'colour', value: 'red' }, { name: 'doors', value: 2 }]);
    // To a class without definitions: attributes stay as they are.
    e.execute('set-class', { ids: ['a'], class: 'tree' });
    expect(e.getAnnotations()[0]!.attributes).toEqual([{ name: 'colour', value: 'red' }, { name: 'doors', value: 2 }]);
  });

  it('pasted and copied-previous shapes are conformed to their class as it is now', () => {
    const e = new Editor({ idGenerator: () => 'p1' });
    e.setAttributesPolicy(policy);
    // 'green' is no car colour (an option removed since the copy was made); the free-form tree keeps its note.
    const stale = { ...box('a', 0, 0, 20, 20), attributes: [{ name: 'colour', value: 'green' }, { name: 'doors', value: 2 }] };
    const tree = { ...box('t', 0, 0, 20, 20, 'tree'), attributes: ['note'] };
    e.execute('paste', { annotations: [stale], offset: 10 });
    expect(e.getAnnotations()[0]!.attributes).toEqual([{ name: 'colour', value: 'blue' }, { name: 'occluded', value: false }, { name: 'doors', value: 2 }]);
    e.execute('replace-all', { annotations: [stale, tree] });
    const [a, t] = e.getAnnotations();
    expect(a!.attributes).toEqual([{ name: 'colour', value: 'blue' }, { name: 'occluded', value: false }, { name: 'doors', value: 2 }]);
    expect(t!.attributes).toEqual(['note']);
  });
});
