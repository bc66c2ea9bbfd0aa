import { describe, expect, it } from 'vitest';
import type { ProjectClass } from '../../contract/projects';
import { autoAnnotateClass, classesOfType, cycledClass, numberKeyClass, relabelPlan, sharedClassType } from './classKeys';

const CLASSES: ProjectClass[] = [
  { name: 'car', type: 'box', color: '#F07575' },
  { name: 'road', type: 'polygon', color: '#ACF6E7' },
  { name: 'truck', type: 'box', color: '#F075A6' },
  { name: 'lane', type: 'polyline', color: '#75F0A6' },
  { name: 'bus', type: 'box', color: '#F6ACE7' },
  { name: 'sidewalk', type: 'polygon', color: '#ACF6AC' },
];

describe('number keys', () => {
  it('pick the n-th class of the type, in the project order', () => {
    expect(numberKeyClass(CLASSES, 'box', 1)?.name).toBe('car');
    expect(numberKeyClass(CLASSES, 'box', 2)?.name).toBe('truck');
    expect(numberKeyClass(CLASSES, 'box', 3)?.name).toBe('bus');
    expect(numberKeyClass(CLASSES, 'polygon', 2)?.name).toBe('sidewalk');
  });

  it('pick nothing past the last class of the type', () => {
    expect(numberKeyClass(CLASSES, 'box', 4)).toBeNull();
    expect(numberKeyClass(CLASSES, 'keypoint', 1)).toBeNull();
    expect(numberKeyClass(CLASSES, 'box', 0)).toBeNull();
  });

  it('take the n-th of every class when the type is unknown (a mixed selection, as the picker lists)', () => {
    expect(numberKeyClass(CLASSES, null, 2)?.name).toBe('road');
    expect(classesOfType(CLASSES, null)).toHaveLength(6);
  });
});

describe('relabelling a selection', () => {
  it('knows the type a selection shares, masks counting as polygons', () => {
    expect(sharedClassType([{ type: 'polygon' }, { type: 'segmentation' }])).toBe('polygon');
    expect(sharedClassType([{ type: 'box' }, { type: 'polygon' }])).toBeNull();
    expect(sharedClassType([])).toBeNull();
  });

  it('changes the shapes the class fits and counts the others', () => {
    const shapes = [
      { id: 'a', type: 'box' as const, class: 'car' },
      { id: 'b', type: 'box' as const, class: 'truck' },
      { id: 'c', type: 'polygon' as const, class: 'road' },
      { id: 'd', type: 'segmentation' as const, class: 'road' },
    ];
    expect(relabelPlan(shapes, CLASSES[2]!)).toEqual({ ids: ['a'], misfits: 2 });
    expect(relabelPlan(shapes, CLASSES[5]!)).toEqual({ ids: ['c', 'd'], misfits: 2 });
  });
});

describe('cycling a class', () => {
  it('steps through the classes of the type and wraps', () => {
    expect(cycledClass(CLASSES, 'box', 'car', 1)?.name).toBe('truck');
    expect(cycledClass(CLASSES, 'box', 'bus', 1)?.name).toBe('car');
    expect(cycledClass(CLASSES, 'box', 'car', -1)?.name).toBe('bus');
  });

  it('starts at an end from a class that is not of the type, and gives null without classes', () => {
    expect(cycledClass(CLASSES, 'box', 'gone', 1)?.name).toBe('car');
    expect(cycledClass(CLASSES, 'box', null, -1)?.name).toBe('bus');
    expect(cycledClass(CLASSES, 'keypoint', null, 1)).toBeNull();
  });
});


describe("Auto-Annotate's class", () => {
  it('is the one chosen in the project while it is still a polygon class', () => {
    expect(autoAnnotateClass('sidewalk', CLASSES)).toBe('sidewalk');
    expect(autoAnnotateClass('car', CLASSES)).toBeNull();
    expect(autoAnnotateClass('gone', CLASSES)).toBeNull();
  });

  it('is asked for when there are several polygon classes, taken when there is one', () => {
    expect(autoAnnotateClass(null, CLASSES)).toBeNull();
    expect(autoAnnotateClass(null, CLASSES.filter((c) => c.name !== 'sidewalk'))).toBe('road');
    expect(autoAnnotateClass(null, CLASSES.filter((c) => c.type === 'box'))).toBeNull();
    expect(autoAnnotateClass(42, CLASSES)).toBeNull();
  });
});
