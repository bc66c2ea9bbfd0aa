// Ground truth and scores (issue 36 §2). POST /api/v1/images/{id}/ground-truth {enabled} marks an
// image's accepted annotations as ground truth (reviewer, admin, owner; 409
// ground_truth_not_accepted unless the image is complete); GET answers whether it is. Projects carry
// gt_rate and gt_pass_threshold (./projects.ts); the scores are in the analytics (./analytics.ts).
// The rules: docs/analytics.md "Ground truth and scores".
import { z } from 'zod';

export const GroundTruthRequest = z.strictObject({ enabled: z.boolean({ error: 'enabled must be true or false' }) });
export type GroundTruthRequest = z.infer<typeof GroundTruthRequest>;

export const GroundTruthState = z.object({
  image_id: z.string(),
  enabled: z.boolean(),
  /** Shapes in the ground truth (0 when not enabled). */
  shapes: z.number().int(),
  /** When it was marked; null when not enabled. */
  marked_at: z.string().nullable(),
});
export type GroundTruthState = z.infer<typeof GroundTruthState>;

export const GroundTruthResponse = z.object({ success: z.literal(true), ground_truth: GroundTruthState });
export type GroundTruthResponse = z.infer<typeof GroundTruthResponse>;
