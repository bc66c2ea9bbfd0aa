// The Export dialog's request parts: the split as typed (validated inline, sent as fractions) and
// the selection with the Data tab's class / annotation filters.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SPLIT_CHOICE, defaultYoloTask, splitProblem, splitRequest } from './ExportOptions';
import { selectionOf } from './ExportDialog';

describe('export split choice', () => {
  it('is sent as fractions with its seed and stratify, test only when above 0', () => {
    expect(splitRequest(DEFAULT_SPLIT_CHOICE)).toBeUndefined();
    const on = { ...DEFAULT_SPLIT_CHOICE, on: true };
    expect(splitProblem(on)).toBeNull();
    expect(splitRequest(on)).toEqual({ train: 0.7, val: 0.2, test: 0.1, seed: 0, stratify: true });
    expect(splitRequest({ ...on, train: '80', test: '0', seed: '12', stratify: false })).toEqual({ train: 0.8, val: 0.2, seed: 12, stratify: false });
  });

  it('says why it cannot be sent', () => {
    const on = { ...DEFAULT_SPLIT_CHOICE, on: true };
    expect(splitProblem({ ...on, val: '35' })).toBe('The percentages must add up to 100 (now 115)');
    expect(splitProblem({ ...on, train: '-10', val: '100' })).toBe('Each percentage must be between 0 and 100');
    expect(splitProblem({ ...on, seed: '1.5' })).toBe('The seed must be a whole number');
    expect(splitProblem({ ...on, val: '35', on: false })).toBeNull();
  });

  it('defaults YOLO to detect when a class is a box class', () => {
    expect(defaultYoloTask({ classes: [{ name: 'a', type: 'polygon', color: '#fff' }] })).toBe('segment');
    expect(defaultYoloTask({ classes: [{ name: 'a', type: 'polygon', color: '#fff' }, { name: 'b', type: 'box', color: '#fff' }] })).toBe('detect');
    // Classes for every tool (issue 33): the tools decide, a class without tools allows boxes; a skeleton class makes it pose.
    expect(defaultYoloTask({ classes: [{ name: 'a', tools: ['polygon', 'mask'], color: '#fff' }] })).toBe('segment');
    expect(defaultYoloTask({ classes: [{ name: 'a', tools: ['polygon', 'box'], color: '#fff' }] })).toBe('detect');
    expect(defaultYoloTask({ classes: [{ name: 'b', type: 'box', color: '#fff' }, { name: 'p', kind: 'skeleton', skeleton: { points: ['nose'], edges: [] }, color: '#fff' }] })).toBe('pose');
  });
});

describe('export selection with annotation filters', () => {
  const base = { selectedIds: [], folderPath: '/north', status: null, search: '', subfolders: true };
  it('looks through every folder with the class / annotation filters, as the Data view does', () => {
    const annotations = { classes: ['car', 'bus'], annotated: null, min: 2, max: null };
    expect(selectionOf('current_filters', { ...base, annotations })).toEqual({ scope: 'current_filters', filters: { class: ['car', 'bus'], min_annotations: 2 } });
    expect(selectionOf('current_filters', { ...base, search: 'x', status: 'complete', annotations: { classes: [], annotated: 'no', min: null, max: null } })).toEqual({
      scope: 'current_filters',
      filters: { has_annotations: 'false', search: 'x', status: 'complete' },
    });
    expect(selectionOf('current_filters', { ...base, annotations: { classes: [], annotated: null, min: null, max: null } })).toEqual({ scope: 'current_filters', filters: { folder_path: '/north', include_subfolders: true } });
  });
});
