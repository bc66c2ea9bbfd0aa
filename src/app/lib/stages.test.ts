import { describe, expect, it } from 'vitest';
import { IMAGE_STATUSES, nextStatus, STAGE_OPTIONS, stageLabel, stageOption, statusLabel } from './stages';

describe('stage labels', () => {
  it('name the pipeline as issue 29 does: Not started, In progress, In review, Done', () => {
    expect(IMAGE_STATUSES.map(statusLabel)).toEqual(['Not started', 'In progress', 'In review', 'Done']);
  });

  it('offer the picker entries in stage order, each with the one name the tiles show', () => {
    expect(STAGE_OPTIONS.map((o) => [o.status, o.label, o.detail])).toEqual([
      ['new', 'Not started', null],
      ['annotating', 'In progress', null],
      ['review', 'In review', null],
      ['complete', 'Done', null],
    ]);
    expect(stageOption('review').label).toBe('In review');
  });

  it('write an entry on one line for toasts, without a second name', () => {
    expect(stageLabel('annotating')).toBe('In progress');
    expect(stageLabel('complete')).toBe('Done');
  });

  it('cycle a single image through the pipeline and back to the start', () => {
    expect(['new', 'annotating', 'review', 'complete'].map((s) => nextStatus(s as never))).toEqual(['annotating', 'review', 'complete', 'new']);
  });
});
