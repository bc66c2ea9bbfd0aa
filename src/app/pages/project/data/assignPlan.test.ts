import { describe, expect, it } from 'vitest';
import { assignmentPlan, overlapHint, overlapProblem } from './assignPlan';

const ids = ['i1', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7'];

describe('assignmentPlan', () => {
  it('shares the images round-robin among several annotators, one call each, with the reviewer on every call', () => {
    const plan = assignmentPlan(ids, { kind: 'members', ids: ['a', 'b', 'c'] }, { kind: 'member', id: 'r' });
    expect(plan).toEqual([
      { image_ids: ['i1', 'i4', 'i7'], assignee_id: 'a', reviewer_id: 'r' },
      { image_ids: ['i2', 'i5'], assignee_id: 'b', reviewer_id: 'r' },
      { image_ids: ['i3', 'i6'], assignee_id: 'c', reviewer_id: 'r' },
    ]);
  });

  it('gives everything to one annotator and leaves the reviewer out when kept', () => {
    expect(assignmentPlan(ids, { kind: 'members', ids: ['a'] }, { kind: 'keep' })).toEqual([{ image_ids: ids, assignee_id: 'a' }]);
  });

  it('clears with null, sets only the reviewer when the annotator is kept, and sends nothing when nothing changes', () => {
    expect(assignmentPlan(ids, { kind: 'clear' }, { kind: 'clear' })).toEqual([{ image_ids: ids, assignee_id: null, reviewer_id: null }]);
    expect(assignmentPlan(ids, { kind: 'keep' }, { kind: 'member', id: 'r' })).toEqual([{ image_ids: ids, reviewer_id: 'r' }]);
    expect(assignmentPlan(ids, { kind: 'keep' }, { kind: 'keep' })).toEqual([]);
  });

  it('splits a member share past the batch limit into several calls', () => {
    const plan = assignmentPlan(ids, { kind: 'members', ids: ['a', 'b'] }, { kind: 'keep' }, { kind: 'keep' }, 2);
    expect(plan.map((p) => [p.assignee_id, p.image_ids])).toEqual([
      ['a', ['i1', 'i3']],
      ['a', ['i5', 'i7']],
      ['b', ['i2', 'i4']],
      ['b', ['i6']],
    ]);
  });

  it('sends the annotators per image on every call: 2..5 as they are, 1 as null (back to one), nothing when kept', () => {
    expect(assignmentPlan(ids, { kind: 'keep' }, { kind: 'keep' }, { kind: 'set', annotators: 2 })).toEqual([{ image_ids: ids, overlap: 2 }]);
    expect(assignmentPlan(ids, { kind: 'keep' }, { kind: 'member', id: 'r' }, { kind: 'set', annotators: 1 })).toEqual([{ image_ids: ids, reviewer_id: 'r', overlap: null }]);
    expect(assignmentPlan(ids.slice(0, 3), { kind: 'members', ids: ['a', 'b'] }, { kind: 'keep' }, { kind: 'set', annotators: 3 }, 2)).toEqual([
      { image_ids: ['i1', 'i3'], assignee_id: 'a', overlap: 3 },
      { image_ids: ['i2'], assignee_id: 'b', overlap: 3 },
    ]);
    expect(assignmentPlan(ids, { kind: 'clear' }, { kind: 'keep' }, { kind: 'keep' })).toEqual([{ image_ids: ids, assignee_id: null }]);
  });

  it('says what the annotators per image mean, and refuses more than the members who annotate', () => {
    expect(overlapHint(null)).toBeNull();
    expect(overlapHint(3)).toMatch(/^Each image goes to 3 different annotators, the first 3 to take it with Start working\./);
    expect(overlapProblem(3, 2)).toBe('Only 2 members annotate in this organization: 3 different annotators per image would never all submit.');
    expect(overlapProblem(2, 2)).toBeNull();
    expect(overlapProblem(2, undefined)).toBeNull();
    expect(overlapProblem(1, 0)).toBeNull();
  });
});
