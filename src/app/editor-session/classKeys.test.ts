import { describe, expect, it } from 'vitest';
import type { ProjectClass } from '../../contract/projects';
import { autoAnnotateClass, classesForShape, classesForShapes, classesForTool, classKeyOf, classToolOfShape, cycledClass, numberKeyClass, relabelPlan, sharedClassTool } from './classKeys';

// A project as migration 0016 leaves one (type kept beside its tools), plus classes of issue 33.
const CLASSES: ProjectClass[] = [
  { name: 'car', type: 'box', tools: ['box'], color: '#F07575' },
  { name: 'road', type: 'polygon', tools: ['polygon', 'mask'], color: '#ACF6E7' },
  { name: 'person', tools: ['box', 'polygon'], color: '#F075A6' },
  { name: 'lane', type: 'polyline', tools: ['polyline'], color: '#75F0A6' },
  { name: 'thing', color: '#F6ACE7' },
  { name: 'sidewalk', type: 'polygon', color: '#ACF6AC' },
  { name: 'pose', kind: 'skeleton', skeleton: { points: ['a', 'b'], edges: [[0, 1]] }, color: '#D775F0' },
];
const names = (cs: readonly ProjectClass[]) => cs.map((c) => c.name);

describe('number keys', () => {
  it('pick the project\'s n-th class, the same whatever the tool', () => {
    expect(numberKeyClass(CLASSES, 1)?.name).toBe('car');
    expect(numberKeyClass(CLASSES, 3)?.name).toBe('person');
    expect(numberKeyClass(CLASSES, 7)?.name).toBe('pose');
    expect(numberKeyClass(CLASSES, 8)).toBeNull();
    expect(numberKeyClass(CLASSES, 0)).toBeNull();
    expect(numberKeyClass(CLASSES, 1.5)).toBeNull();
  });

  it('are shown beside each class in the picker as its place in the project, up to 9', () => {
    expect(classesForTool(CLASSES, 'box').map((c) => [c.name, classKeyOf(CLASSES, c.name)])).toEqual([['car', 1], ['person', 3], ['thing', 5]]);
    const many = Array.from({ length: 12 }, (_, i) => ({ name: `c${i}`, color: '#F07575' }));
    expect(classKeyOf(many, 'c8')).toBe(9);
    expect(classKeyOf(many, 'c9')).toBeNull();
    expect(classKeyOf(many, 'gone')).toBeNull();
  });
});

describe('the classes a tool may draw', () => {
  it('lists classes that allow the tool: one class drawn as box and polygon, a class without tools everywhere, masks their own tool', () => {
    expect(names(classesForTool(CLASSES, 'box'))).toEqual(['car', 'person', 'thing']);
    expect(names(classesForTool(CLASSES, 'polygon'))).toEqual(['road', 'person', 'thing', 'sidewalk']);
    expect(names(classesForTool(CLASSES, 'mask'))).toEqual(['road', 'thing', 'sidewalk']);
    expect(names(classesForTool(CLASSES, 'keypoint'))).toEqual(['thing', 'pose']);
    expect(classesForTool(CLASSES, null)).toHaveLength(7);
  });

  it('knows the tool behind each shape, and the classes a shape or a selection may be given', () => {
    expect(classToolOfShape('segmentation')).toBe('mask');
    expect(classToolOfShape('skeleton')).toBe('keypoint');
    expect(names(classesForShape(CLASSES, 'segmentation'))).toEqual(['road', 'thing', 'sidewalk']);
    expect(names(classesForShapes(CLASSES, [{ type: 'box' }, { type: 'polygon' }]))).toEqual(['person', 'thing']);
    expect(sharedClassTool([{ type: 'polygon' }, { type: 'polygon' }])).toBe('polygon');
    expect(sharedClassTool([{ type: 'polygon' }, { type: 'segmentation' }])).toBeNull();
    expect(sharedClassTool([])).toBeNull();
  });
});

describe('relabelling', () => {
  it('gives the class to the shapes whose tool it allows, and counts the others', () => {
    const shapes = [
      { id: 'a', type: 'box' as const, class: 'car' },
      { id: 'b', type: 'polygon' as const, class: 'road' },
      { id: 'c', type: 'segmentation' as const, class: 'road' },
      { id: 'd', type: 'polyline' as const, class: 'lane' },
    ];
    expect(relabelPlan(shapes, CLASSES[2]!)).toEqual({ ids: ['a', 'b'], misfits: 2 });
    expect(relabelPlan(shapes, CLASSES[4]!)).toEqual({ ids: ['a', 'b', 'c', 'd'], misfits: 0 });
    expect(relabelPlan(shapes, CLASSES[0]!)).toEqual({ ids: [], misfits: 3 });
  });
});

describe('C and Shift+C', () => {
  it('step through the listed classes, wrapping', () => {
    const box = classesForTool(CLASSES, 'box');
    expect(cycledClass(box, 'car', 1)?.name).toBe('person');
    expect(cycledClass(box, 'thing', 1)?.name).toBe('car');
    expect(cycledClass(box, 'car', -1)?.name).toBe('thing');
    expect(cycledClass(box, 'gone', 1)?.name).toBe('car');
    expect(cycledClass(box, null, -1)?.name).toBe('thing');
    expect(cycledClass([], null, 1)).toBeNull();
  });
});

describe("Auto-Annotate's class", () => {
  it('keeps the stored class while it may draw masks, else the only mask class, else asks', () => {
    expect(autoAnnotateClass('sidewalk', CLASSES)).toBe('sidewalk');
    expect(autoAnnotateClass('person', CLASSES)).toBeNull(); // box and polygon, no masks
    expect(autoAnnotateClass('gone', CLASSES)).toBeNull();
    expect(autoAnnotateClass(null, CLASSES.filter((c) => c.name === 'road' || c.name === 'car'))).toBe('road');
    expect(autoAnnotateClass(null, CLASSES.filter((c) => c.name === 'car'))).toBeNull();
    expect(autoAnnotateClass(42, CLASSES)).toBeNull();
  });
});
