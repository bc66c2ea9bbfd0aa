// Consensus (issue 36 §3). An image assigned with `overlap: N` (./workflow.ts AssignRequest, 2..5)
// goes to N different annotators through queue/next; each one's load-data and saves read and write
// their own draft, which nobody else sees. Once all N have submitted, the image goes to review and
// GET /api/v1/images/{id}/drafts answers the drafts with their agreement; POST
// /api/v1/images/{id}/merge {annotations} makes a list the image's annotations as one history
// entry by the reviewer. Both routes: reviewer, admin and owner ('images.review'). Codes:
// invalid_overlap (400), not_overlapped and consensus_pending (409), in ./errors.ts.
import { z } from 'zod';
import { Image } from './images';
import { Person } from './workflow';

/** Pairwise agreement of the submitted drafts, averaged over the pairs (F1 at IoU >= 0.5 per class, and the mean IoU of the matches; both 0..1). */
export const Agreement = z.object({ f1: z.number(), mean_iou: z.number() });
export type Agreement = z.infer<typeof Agreement>;

export const Draft = z.object({
  user: Person,
  /** The stored annotations of the draft (contract/annotations.ts StoredAnnotation). */
  annotations: z.array(z.record(z.string(), z.unknown())),
  /** When the annotator submitted it; null while they still work on it. */
  submitted_at: z.string().nullable(),
});
export type Draft = z.infer<typeof Draft>;

/** Oldest slot first. `agreement` is null until all N annotators have submitted. */
export const DraftsResponse = z.object({ drafts: z.array(Draft), agreement: Agreement.nullable() });
export type DraftsResponse = z.infer<typeof DraftsResponse>;

/** Checked like a save (shapes, classes, limits); the list becomes the image's annotations. */
export const MergeRequest = z.strictObject({ annotations: z.array(z.unknown()) });
export type MergeRequest = z.infer<typeof MergeRequest>;

/** The image after the merge (its annotation_count follows) and the annotations' version the merge wrote. */
export const MergeResponse = z.object({ success: z.literal(true), image: Image, version: z.number().int() });
export type MergeResponse = z.infer<typeof MergeResponse>;
