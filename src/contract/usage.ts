// Usage tracking per organization (spec sections 3 "Annotation usage record", 7 "Projects and usage").
import { z } from 'zod';

export const USAGE_ANNOTATION_TYPES = ['bbox', 'polygon', 'polyline', 'keypoint', 'segmentation', 'unknown'] as const;
export const UsageAnnotationType = z.enum(USAGE_ANNOTATION_TYPES);
export type UsageAnnotationType = z.infer<typeof UsageAnnotationType>;
export const MAX_USAGE_COUNT = 100_000;

export const RecordAnnotationUsageRequest = z.object({
  organization_id: z.string().uuid('organization_id must be a UUID'),
  project_id: z.string().uuid('project_id must be a UUID'),
  image_id: z.string().uuid('image_id must be a UUID').nullish(),
  annotation_type: UsageAnnotationType,
  annotation_count: z.number().int().min(1).max(MAX_USAGE_COUNT).default(1),
});
export const RecordAnnotationUsageResponse = z.object({ success: z.literal(true), id: z.number() });

const ByType = z.record(z.string(), z.number());

export const UsageSummaryQuery = z.object({
  /** Only records at or after this instant (ISO 8601); absent: all time. */
  since: z.iso.datetime({ offset: true }).optional(),
});

export const UsageSummaryResponse = z.object({
  organization_id: z.string(),
  since: z.string().nullable(),
  annotations: z.object({
    total: z.number(),
    by_type: ByType,
    by_project: z.array(z.object({ project_id: z.string().nullable(), project_name: z.string().nullable(), total: z.number(), by_type: ByType })),
  }),
  storage: z.object({
    image_count: z.number(),
    /** Sum of the original files' sizes (archived images included: they are still stored). */
    images_bytes: z.number(),
    thumbnails_bytes: z.number(),
    total_bytes: z.number(),
    by_project: z.array(z.object({ project_id: z.string(), project_name: z.string(), image_count: z.number(), images_bytes: z.number(), thumbnails_bytes: z.number() })),
  }),
});
