// Usage records (spec section 7 'Projects and usage'): each creation action (shapes drawn, pasted,
// copied from the previous image, an assisted mask completed) sends one POST /usage/annotation
// per kind of shape it created, with the count. A failure is only logged (spec: 'Usage failures
// are only logged'): usage never interrupts or blocks annotating, and is not retried.
import type { EditorAnnotation } from '../../engine';
import type { UsageAnnotationType } from '../../contract/usage';
import { api } from '../api/client';

// A skeleton instance counts as keypoint usage (the usage kinds are the spec's).
const KIND: Record<EditorAnnotation['type'], UsageAnnotationType> = { box: 'bbox', polygon: 'polygon', polyline: 'polyline', keypoint: 'keypoint', segmentation: 'segmentation', skeleton: 'keypoint' };

export interface UsageTarget {
  orgId: string;
  projectId: string;
  imageId: string;
}

type Send = typeof api.recordAnnotationUsage;

/** How many shapes of each usage kind, in first-seen order. */
export function usageCounts(shapes: Iterable<EditorAnnotation | undefined>): Map<UsageAnnotationType, number> {
  const counts = new Map<UsageAnnotationType, number>();
  for (const a of shapes) {
    if (!a) continue;
    const kind = KIND[a.type] ?? 'unknown';
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

/** Records one creation action; resolves when every call has finished or failed (never rejects). */
export async function recordCreated(target: UsageTarget, shapes: Iterable<EditorAnnotation | undefined>, send: Send = api.recordAnnotationUsage, log: (message: string, err: unknown) => void = console.warn): Promise<void> {
  const calls = [...usageCounts(shapes)].map(([annotation_type, annotation_count]) =>
    send({ organization_id: target.orgId, project_id: target.projectId, image_id: target.imageId, annotation_type, annotation_count }).catch((err: unknown) =>
      log('Failed to record annotation usage:', err),
    ),
  );
  await Promise.all(calls);
}
