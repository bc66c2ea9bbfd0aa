import { describe, expect, it } from 'vitest';
import { CLASS_PALETTE } from '../../../contract/projects';
import { cocoCategories, COCO_PERSON_SKELETON, duplicateName, MAX_CATEGORIES_FILE, newClassColor, paletteColor, parseSkeleton, pastedClassNames, skeletonText, toolsField, toolsLabel } from './classes';

describe('class helpers', () => {
  it('duplicates with copy, then copy N, unique case-insensitively', () => {
    const c = (name: string) => ({ name, type: 'box' as const, color: '#FFADAD' });
    expect(duplicateName('Car', [c('Car')])).toBe('Car copy');
    expect(duplicateName('Car', [c('Car'), c('car COPY')])).toBe('Car copy 2');
    expect(duplicateName('Car', [c('Car'), c('Car copy'), c('Car copy 2')])).toBe('Car copy 3');
  });
  it('picks palette colours by position, and for a new class the one furthest from those in use', () => {
    expect(paletteColor(0)).toBe(CLASS_PALETTE[0]);
    expect(paletteColor(16)).toBe(CLASS_PALETTE[1]);
    const cls = (color: string) => ({ name: color, type: 'box' as const, color });
    expect(newClassColor([])).toBe('#F07575');
    const used = CLASS_PALETTE.slice(0, 14).map(cls);
    expect(newClassColor(used)).toBe(CLASS_PALETTE[14]);
    // A duplicate differs from its original even when every colour is used.
    for (const c of CLASS_PALETTE) expect(newClassColor(CLASS_PALETTE.map(cls), c)).not.toBe(c);
    // Red taken: the next class is not one of the reds or pinks.
    expect(['#F075A6', '#F6ACE7', '#F6CAAC']).not.toContain(newClassColor([cls('#F07575')]));
  });
});

describe('adding many classes, tools and skeletons (issue 33)', () => {
  const have = [{ name: 'Person', color: '#F07575' }];

  it('reads pasted names one a line: trimmed, blank lines and repeats dropped, names the project has set apart', () => {
    expect(pastedClassNames('  person\n\nbicycle\r\ncar\nBicycle\n car \n', have)).toEqual({ fresh: ['bicycle', 'car'], existing: ['person'] });
    expect(pastedClassNames('', have)).toEqual({ fresh: [], existing: [] });
  });

  it('reads a COCO categories file, a category with keypoints as a skeleton (edges made 0-based)', () => {
    const file = { info: {}, categories: [{ id: 1, name: 'person', keypoints: ['nose', 'left_eye', 'right_eye'], skeleton: [[1, 2], [1, 3]] }, { id: 2, name: ' bicycle ' }] };
    expect(cocoCategories(new TextEncoder().encode(JSON.stringify(file)))).toEqual({
      categories: [{ name: 'person', skeleton: { points: ['nose', 'left_eye', 'right_eye'], edges: [[0, 1], [0, 2]] } }, { name: 'bicycle' }],
    });
    expect(cocoCategories(new TextEncoder().encode(JSON.stringify([{ name: 'cat' }])))).toEqual({ categories: [{ name: 'cat' }] });
  });

  it('refuses files that are not a categories list, with the reason', () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    expect(cocoCategories(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toEqual({ error: 'This is not a JSON file: a COCO categories file starts with { or [' });
    expect(cocoCategories(bytes('{"categories": [1,'))).toEqual({ error: 'The file is not valid JSON' });
    expect(cocoCategories(bytes('{"images": []}'))).toEqual({ error: 'The file has no "categories" list' });
    expect(cocoCategories(bytes('{"categories": [{"name": "a"}, {"id": 2}]}'))).toEqual({ error: 'Category 2 has no name' });
    expect(cocoCategories(new Uint8Array(MAX_CATEGORIES_FILE + 1).fill(0x20))).toMatchObject({ error: expect.stringContaining('at most 2 MB') });
    expect(cocoCategories(bytes(JSON.stringify({ categories: Array.from({ length: 1001 }, (_, i) => ({ name: `c${i}` })) })))).toMatchObject({ error: expect.stringContaining('at most 1000 classes') });
  });

  it('reads a skeleton written as text, edges by name or 1-based number, and writes it back', () => {
    expect(parseSkeleton('head\ntail\n\nleg', 'head - tail\n3 2')).toEqual({ skeleton: { points: ['head', 'tail', 'leg'], edges: [[0, 1], [2, 1]] } });
    expect(parseSkeleton('', '')).toEqual({ error: 'List the skeleton’s points, one name a line' });
    expect(parseSkeleton('a\nA', '')).toEqual({ error: 'Each point name may appear only once' });
    expect(parseSkeleton('a\nb', 'a - c')).toEqual({ error: 'Edge “a - c” names a point the skeleton does not have' });
    expect(parseSkeleton('a\nb', 'a b c')).toMatchObject({ error: expect.stringContaining('two point names') });
    const text = skeletonText(COCO_PERSON_SKELETON);
    expect(parseSkeleton(text.points, text.edges)).toEqual({ skeleton: COCO_PERSON_SKELETON });
    expect(COCO_PERSON_SKELETON.points).toHaveLength(17);
    expect(COCO_PERSON_SKELETON.edges).toHaveLength(19);
  });

  it('names the tools a class is drawn with, and leaves tools out when every tool may', () => {
    expect(toolsLabel({ name: 'a', color: '#F07575' })).toBe('Any tool');
    expect(toolsLabel({ name: 'a', color: '#F07575', type: 'polygon' })).toBe('Polygon, Mask');
    expect(toolsLabel({ name: 'a', color: '#F07575', tools: ['polygon', 'box'] })).toBe('Box, Polygon');
    expect(toolsLabel({ name: 'a', color: '#F07575', kind: 'skeleton', skeleton: COCO_PERSON_SKELETON })).toBe('Skeleton (17 points)');
    expect(toolsField(['mask', 'box'])).toEqual({ tools: ['box', 'mask'] });
    expect(toolsField(['box', 'polygon', 'polyline', 'keypoint', 'mask'])).toEqual({});
  });
});
