// What "Assign..." sends (issue 29): one POST /images/assign per member, at most MAX_BATCH_IDS ids
// each. Shared evenly among several annotators, the images go round-robin in the order given (the
// grid's order), so each gets every k-th image and the counts differ by one at most.
import { MAX_BATCH_IDS } from '../../../../contract/images';
import type { AssignRequest } from '../../../../contract/workflow';

/** Left out: unchanged; null: cleared; one id: that member; several: shared round-robin among them. */
export type AssigneeChoice = { kind: 'keep' } | { kind: 'clear' } | { kind: 'members'; ids: string[] };
export type ReviewerChoice = { kind: 'keep' } | { kind: 'clear' } | { kind: 'member'; id: string };

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

export function assignmentPlan(imageIds: readonly string[], assignee: AssigneeChoice, reviewer: ReviewerChoice, batch = MAX_BATCH_IDS): AssignRequest[] {
  const reviewerField = reviewer.kind === 'keep' ? {} : { reviewer_id: reviewer.kind === 'clear' ? null : reviewer.id };
  if (assignee.kind === 'members' && assignee.ids.length > 0) {
    const k = assignee.ids.length;
    return assignee.ids.flatMap((memberId, j) =>
      chunks(
        imageIds.filter((_, i) => i % k === j),
        batch,
      ).map((ids) => ({ image_ids: ids, assignee_id: memberId, ...reviewerField })),
    );
  }
  const assigneeField = assignee.kind === 'clear' ? { assignee_id: null } : {};
  if (!('assignee_id' in assigneeField) && !('reviewer_id' in reviewerField)) return [];
  return chunks([...imageIds], batch).map((ids) => ({ image_ids: ids, ...assigneeField, ...reviewerField }));
}
