// What "Assign..." sends (issue 29): one POST /images/assign per member, at most MAX_BATCH_IDS ids
// each. Shared evenly among several annotators, the images go round-robin in the order given (the
// grid's order), so each gets every k-th image and the counts differ by one at most. An overlap
// (issue 36 §3: annotators per image) rides on every call.
import { MAX_BATCH_IDS } from '../../../../contract/images';
import type { AssignRequest } from '../../../../contract/workflow';

/** Left out: unchanged; null: cleared; one id: that member; several: shared round-robin among them. */
export type AssigneeChoice = { kind: 'keep' } | { kind: 'clear' } | { kind: 'members'; ids: string[] };
export type ReviewerChoice = { kind: 'keep' } | { kind: 'clear' } | { kind: 'member'; id: string };
/** Annotators per image (consensus): left out when kept; 1 is sent as null (back to one annotator), 2..5 as they are. */
export type OverlapChoice = { kind: 'keep' } | { kind: 'set'; annotators: number };

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

export function assignmentPlan(imageIds: readonly string[], assignee: AssigneeChoice, reviewer: ReviewerChoice, overlap: OverlapChoice = { kind: 'keep' }, batch = MAX_BATCH_IDS): AssignRequest[] {
  const reviewerField = {
    ...(reviewer.kind === 'keep' ? {} : { reviewer_id: reviewer.kind === 'clear' ? null : reviewer.id }),
    ...(overlap.kind === 'keep' ? {} : { overlap: overlap.annotators <= 1 ? null : overlap.annotators }),
  };
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
  if (!('assignee_id' in assigneeField) && Object.keys(reviewerField).length === 0) return [];
  return chunks([...imageIds], batch).map((ids) => ({ image_ids: ids, ...assigneeField, ...reviewerField }));
}

/** What the 'Annotators per image' choice means, said under it; null when kept. */
export function overlapHint(annotators: number | null): string | null {
  if (annotators === null) return null;
  if (annotators === 1) return 'One annotator per image: each image goes to the person it is assigned to (or the first to take it).';
  return `Each image goes to ${annotators} different annotators, the first ${annotators} to take it with Start working. Each draws on a layer of their own without seeing the others'; once ${annotators === 2 ? 'both' : `all ${annotators}`} have submitted, a reviewer compares the layers and merges them. Only images nobody has started can change.`;
}

/** Why the choice cannot be sent (more annotators per image than members who annotate), else null. */
export function overlapProblem(annotators: number | null, annotatorCount: number | undefined): string | null {
  if (annotators === null || annotators <= 1 || annotatorCount === undefined || annotators <= annotatorCount) return null;
  return `Only ${annotatorCount} ${annotatorCount === 1 ? 'member annotates' : 'members annotate'} in this organization: ${annotators} different annotators per image would never all submit.`;
}
