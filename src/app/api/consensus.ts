// Consensus (issue 36 §3, src/contract/consensus.ts): the annotators' drafts of an overlapped image
// with their agreement, and the reviewer's merge. Answers are parsed with the contract's schemas by
// client.ts's request(); failures throw ApiRequestError (consensus_pending, not_overlapped: 409).
import type { StoredAnnotation } from '../../contract/annotations';
import { DraftsResponse, MergeResponse } from '../../contract/consensus';
import { request } from './client';

const enc = encodeURIComponent;

export const consensusApi = {
  /** Each annotator's draft (oldest slot first) and the agreement, null until all have submitted. */
  drafts: (imageId: string, signal?: AbortSignal) => request('GET', `/images/${enc(imageId)}/drafts`, DraftsResponse, undefined, { signal }),
  /** Makes `annotations` the image's annotations, one history entry by the reviewer. */
  merge: (imageId: string, annotations: readonly StoredAnnotation[]) => request('POST', `/images/${enc(imageId)}/merge`, MergeResponse, { annotations }),
};
