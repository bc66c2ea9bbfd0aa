// Project analytics (issue 36 §1): GET /api/v1/projects/{id}/analytics?from&to&bucket=day|week.
// Who did what per member and in total over a range of UTC days, and the images per stage at the
// end of each day or week. The counting rules: docs/analytics.md. Codes: invalid_bucket,
// invalid_date_range (errors.ts).
import { z } from 'zod';
import { Person } from './workflow';

export const ANALYTICS_BUCKETS = ['day', 'week'] as const;
export type AnalyticsBucket = (typeof ANALYTICS_BUCKETS)[number];
/** The longest range, in UTC days counting both ends: a year and a day, so a leap year fits. */
export const MAX_ANALYTICS_DAYS = 367;
/** Gaps between a member's saves longer than this are idle (docs/analytics.md "Active time"). */
export const IDLE_GAP_MS = 5 * 60_000;

/** Strings, checked by the service so that a bad bucket or range answers its own code. */
export const AnalyticsQuery = z.object({
  org_id: z.string().uuid('org_id must be a UUID').optional(),
  from: z.string().max(64).optional(),
  to: z.string().max(64).optional(),
  bucket: z.string().max(16).optional(),
});
export type AnalyticsQuery = z.infer<typeof AnalyticsQuery>;

export const ShapeCounts = z.object({ shapes_created: z.number().int(), shapes_edited: z.number().int(), shapes_deleted: z.number().int() });
export type ShapeCounts = z.infer<typeof ShapeCounts>;

export const ActivityCounts = ShapeCounts.extend({
  images_submitted: z.number().int(),
  images_accepted: z.number().int(),
  images_rejected: z.number().int(),
  /** Minutes between saves at most IDLE_GAP_MS apart, to one decimal. */
  active_minutes: z.number(),
  issues_opened: z.number().int(),
  issues_resolved: z.number().int(),
});
export type ActivityCounts = z.infer<typeof ActivityCounts>;

/**
 * Ground-truth scores (issue 36 §2) over the attempts submitted in the range: the mean of their F1,
 * the mean of their mean IoU (null when no match was measured by IoU: keypoints only), how many.
 * Rounded to 4 decimals. The rules: docs/analytics.md "Ground truth and scores".
 */
export const GroundTruthScore = z.object({ f1: z.number(), mean_iou: z.number().nullable(), images: z.number().int() });
export type GroundTruthScore = z.infer<typeof GroundTruthScore>;

export const MemberActivity = ActivityCounts.extend({
  user: Person,
  by_class: z.record(z.string(), ShapeCounts),
  /** Null while the member submitted no ground-truth attempt in the range. */
  gt: GroundTruthScore.nullable(),
  /** The member's scores per class (the attempts whose reference or answer holds the class). */
  gt_by_class: z.record(z.string(), GroundTruthScore),
});

/** One scored attempt at a ground-truth image. */
export const GroundTruthAttempt = z.object({
  image_id: z.string(),
  filename: z.string(),
  user: Person,
  submitted_at: z.string(),
  f1: z.number(),
  mean_iou: z.number().nullable(),
  /** Mean OKS of the matched keypoints and skeletons; null without any. */
  mean_oks: z.number().nullable(),
  /** The share of the reference's attributes on matched shapes given equal; null without any. */
  attributes: z.number().nullable(),
  /** f1 >= the project's gt_pass_threshold. */
  passed: z.boolean(),
});
export type GroundTruthAttempt = z.infer<typeof GroundTruthAttempt>;

/** The ground-truth scores of the range (the attempts of the members shown), newest first. */
export const GroundTruthReport = z.object({
  /** The project's gt_pass_threshold: an F1 under it fails. */
  pass_threshold: z.number(),
  attempts: z.array(GroundTruthAttempt),
  by_class: z.record(z.string(), GroundTruthScore),
});
export type GroundTruthReport = z.infer<typeof GroundTruthReport>;
export type MemberActivity = z.infer<typeof MemberActivity>;

export const StageCounts = z.object({ new: z.number().int(), annotating: z.number().int(), review: z.number().int(), complete: z.number().int() });
export type StageCounts = z.infer<typeof StageCounts>;

export const AnalyticsBucketRow = z.object({
  /** The bucket's first UTC day (YYYY-MM-DD); a week starts on Monday. */
  start: z.string(),
  /** Images not archived in each stage at the end of the bucket's last day (or now, for today). */
  stage_counts: StageCounts,
});

export const AnalyticsResponse = z.object({
  /** The range answered, as UTC days (YYYY-MM-DD), both ends counted. */
  from: z.string(),
  to: z.string(),
  bucket: z.enum(ANALYTICS_BUCKETS),
  /** Everyone for owners, admins and reviewers; the caller alone for an annotator. */
  members: z.array(MemberActivity),
  /** The sums over `members`. */
  totals: ActivityCounts.extend({ by_class: z.record(z.string(), ShapeCounts) }),
  buckets: z.array(AnalyticsBucketRow),
  gt: GroundTruthReport,
});
export type AnalyticsResponse = z.infer<typeof AnalyticsResponse>;
