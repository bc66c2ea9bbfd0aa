// Pre-label jobs (issue 34 §2): a model of the organization's registry draws on a project's images,
// and each prediction is saved as an annotation with `source: {model_id, score, pending: true}`
// (PredictionSource in ./annotations.ts). POST /api/v1/projects/{id}/prelabel answers 202 {job_id};
// GET /api/v1/prelabel/{job_id} its progress and report; POST .../cancel stops it. docs/models.md.
import { z } from 'zod';
import { storedText } from './text';
import { MAX_MODEL_ID_LENGTH } from './annotations';

/** The default score. The built-in detector finds only a third of the objects at 0.4 (71% at 0.2): the Models page suggests its own (suggestedMinScore). */
export const PRELABEL_DEFAULT_MIN_SCORE = 0.4;
export const PRELABEL_DEFAULT_MAX_PER_IMAGE = 300;
export const PRELABEL_MAX_PER_IMAGE = 1000;
/** Images a job may name in image_ids (a folder or the whole project has no such limit). */
export const PRELABEL_MAX_IMAGE_IDS = 10_000;
export const PRELABEL_MAX_CLASS_MAP = 1000;
/** Skipped images the report lists (it counts them all). */
export const PRELABEL_MAX_SKIPPED_LISTED = 1000;

/** The score the Models page starts from for a model: the built-in CenterNet scores low (docs/models.md "Why CenterNet"). */
export function suggestedMinScore(modelId: string): number {
  return modelId === 'builtin-coco-centernet' ? 0.2 : PRELABEL_DEFAULT_MIN_SCORE;
}

const uuid = (what: string) => z.string().uuid(`${what} must be a UUID`);
const className = (what: string) => storedText(z.string().min(1, `${what} must not be empty`).max(100, `${what}: at most 100 characters`), what);

export const PrelabelRequest = z
  .strictObject({
    model_id: z.string().min(1, 'model_id is required').max(MAX_MODEL_ID_LENGTH, `model_id: at most ${MAX_MODEL_ID_LENGTH} characters`),
    image_ids: z.array(uuid('image_ids')).min(1, 'image_ids must not be empty').max(PRELABEL_MAX_IMAGE_IDS, `image_ids: at most ${PRELABEL_MAX_IMAGE_IDS}`).optional(),
    /** a folder, with its sub-folders */
    folder_path: z.string().min(1, 'folder_path must not be empty').max(1000, 'folder_path: at most 1000 characters').optional(),
    all: z.literal(true, { error: 'all must be true when given' }).optional(),
    /** {model class: project class name} */
    class_map: z
      .record(className('class_map keys'), className('class_map values'))
      .refine((m) => Object.keys(m).length <= PRELABEL_MAX_CLASS_MAP, `class_map: at most ${PRELABEL_MAX_CLASS_MAP} entries`)
      .optional(),
    create_missing_classes: z.boolean().default(false),
    min_score: z.number().min(0, 'min_score must be from 0 to 1').max(1, 'min_score must be from 0 to 1').default(PRELABEL_DEFAULT_MIN_SCORE),
    max_per_image: z.number().int('max_per_image must be a whole number').min(1).max(PRELABEL_MAX_PER_IMAGE, `max_per_image: at most ${PRELABEL_MAX_PER_IMAGE}`).default(PRELABEL_DEFAULT_MAX_PER_IMAGE),
    skip_annotated: z.boolean().default(true),
  })
  .refine((b) => [b.image_ids !== undefined, b.folder_path !== undefined, b.all === true].filter(Boolean).length === 1, {
    message: 'Give exactly one of image_ids, folder_path or all: true',
    path: ['image_ids'],
  });
export type PrelabelRequest = z.infer<typeof PrelabelRequest>;
export type PrelabelRequestInput = z.input<typeof PrelabelRequest>;

export const PrelabelProjectParams = z.object({ id: uuid('id') });
export const PrelabelJobParams = z.object({ job_id: uuid('job_id') });

export const PRELABEL_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type PrelabelStatus = (typeof PRELABEL_STATUSES)[number];

/** An image skipped or whose predictions were partly left out: its id, its filename (null once the image is deleted) and why, in words. */
export const PrelabelSkipped = z.object({ image_id: z.string(), filename: z.string().nullable(), reason: z.string() });

export const PrelabelJob = z.object({
  id: z.string(),
  project_id: z.string(),
  model_id: z.string(),
  status: z.enum(PRELABEL_STATUSES),
  /** images finished (predicted or skipped) of the images the job covers */
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  report: z.object({
    /** images that got their predictions saved */
    images: z.number().int(),
    /** predictions saved */
    predictions: z.number().int(),
    /** images skipped, or whose predictions were partly dropped, with why (the first PRELABEL_MAX_SKIPPED_LISTED) */
    skipped: z.array(PrelabelSkipped),
    /** every skipped entry, listed or not */
    skipped_total: z.number().int(),
  }),
  error: z.string().optional(),
  created_at: z.string(),
});
export type PrelabelJob = z.infer<typeof PrelabelJob>;

export const PrelabelStarted = z.object({ job_id: z.string() });
