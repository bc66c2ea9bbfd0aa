import { describe, expect, it } from 'vitest';
import { IMAGE_STATUSES, STAGE_OPTIONS, STATUS_LABELS, stageLabel, stageOption, statusLabel } from './stages';

describe('stage labels', () => {
  it('name each status as the spec does: Not Started, In Progress, Complete', () => {
    expect(IMAGE_STATUSES.map(statusLabel)).toEqual(['Not Started', 'In Progress', 'Complete']);
    expect(STATUS_LABELS.annotating).toBe('In Progress');
  });

  it('offer the picker entries in stage order, annotating as Review with In Progress beside it', () => {
    expect(STAGE_OPTIONS).toEqual([
      { status: 'new', label: 'Not Started', detail: null },
      { status: 'annotating', label: 'Review', detail: 'In Progress' },
      { status: 'complete', label: 'Complete', detail: null },
    ]);
    // Every entry names the state the tiles show: its label or its detail is the tile's word.
    for (const o of STAGE_OPTIONS) expect([o.label, o.detail]).toContain(statusLabel(o.status));
    expect(stageOption('annotating').label).toBe('Review');
  });

  it('write an entry on one line for toasts', () => {
    expect(stageLabel('annotating')).toBe('Review (In Progress)');
    expect(stageLabel('complete')).toBe('Complete');
    expect(stageLabel('new')).toBe('Not Started');
  });
});
