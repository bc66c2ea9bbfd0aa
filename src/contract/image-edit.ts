// Magic Image Edit (spec sections 3 "Image-edit job", 4 "Image edit job", 5, 7 "Image edit", 8, 9):
// POST /api/v1/image-edit/edit starts a background job, GET /image-edit/status/{id} reports it,
// GET /image-edit/health says which provider edits. See src/server/services/image-edit/.
import { z } from 'zod';
import { storedText } from './text';

/** Spec section 9: at most 100 images per edit; the dialog prefills the first 5 of the selection. */
export const MAX_EDIT_IMAGES = 100;
export const EDIT_PREFILL_COUNT = 5;
export const DEFAULT_EDIT_STEPS = 40;
export const DEFAULT_EDIT_GUIDANCE = 1;
export const DEFAULT_EDIT_TRUE_CFG = 4;
/** A random seed is below this when the client sends none. */
export const EDIT_SEED_LIMIT = 1_000_000;
export const EDIT_POLL_MS = 5000;
export const EDIT_RETRY_MS = 10_000;
export const EDIT_ERROR_CLEAR_MS = 5000;
export const MAX_EDIT_PROMPT_LENGTH = 2000;

export const EDIT_MESSAGES = {
  noImages: 'Select at least one image to edit',
  tooMany: `At most ${MAX_EDIT_IMAGES} images can be edited at once`,
  promptRequired: 'Enter a prompt that describes the edit',
} as const;

export const ImageEditRequest = z.object({
  project_id: z.string().uuid('project_id must be a UUID'),
  /** Filenames of images in the project (filenames are unique per project). */
  image_names: z
    .array(z.string().min(1, 'image names must not be empty').max(1000))
    .min(1, EDIT_MESSAGES.noImages)
    .max(MAX_EDIT_IMAGES, EDIT_MESSAGES.tooMany),
  prompt: storedText(
    z
      .string()
      .max(MAX_EDIT_PROMPT_LENGTH, `The prompt must be at most ${MAX_EDIT_PROMPT_LENGTH} characters`)
      .refine((p) => p.trim().length > 0, EDIT_MESSAGES.promptRequired),
    'The prompt',
  ),
  /** Where the edited copies go; '/' is the root. */
  current_folder_path: z.string().max(2000).default('/'),
  negative_prompt: storedText(z.string().max(MAX_EDIT_PROMPT_LENGTH), 'The negative prompt').nullish(),
  num_inference_steps: z.number().int().min(1).max(500).default(DEFAULT_EDIT_STEPS),
  guidance_scale: z.number().min(0).max(100).default(DEFAULT_EDIT_GUIDANCE),
  true_cfg_scale: z.number().min(0).max(100).default(DEFAULT_EDIT_TRUE_CFG),
  /** Absent or null: a random seed below 1,000,000. The same seed gives the same built-in result. */
  seed: z.number().int().min(0).max(2 ** 31 - 1).nullish(),
});
export type ImageEditRequest = z.infer<typeof ImageEditRequest>;

export const IMAGE_EDIT_STATUSES = ['queued', 'processing', 'registering', 'completed', 'failed'] as const;
export type ImageEditStatus = (typeof IMAGE_EDIT_STATUSES)[number];

export const ImageEditStartResponse = z.object({
  success: z.literal(true),
  status: z.enum(IMAGE_EDIT_STATUSES),
  edit_id: z.string(),
  total_count: z.number(),
  seed: z.number(),
  provider: z.string(),
});
export type ImageEditStartResponse = z.infer<typeof ImageEditStartResponse>;

/** Registration data per new image (spec section 3), plus its id and the image it was made from. */
export const EditedImage = z.object({
  image_id: z.string(),
  source_filename: z.string(),
  filename: z.string(),
  gcs_path: z.string(),
  gcs_uri: z.string(),
  folder_path: z.string(),
  file_size: z.number(),
  mime_type: z.string(),
  width: z.number(),
  height: z.number(),
  /** True when the source's annotations were carried onto the copy. */
  annotation_created: z.boolean(),
  annotation_count: z.number(),
});
export type EditedImage = z.infer<typeof EditedImage>;

/** stage: 'edit' when the image could not be edited, 'register' when its edited copy could not be registered. */
export const EditFailure = z.object({ filename: z.string(), error: z.string(), stage: z.enum(['edit', 'register']) });

export const ImageEditResult = z.object({
  successful_count: z.number(),
  total_count: z.number(),
  failed_count: z.number(),
  /** Always false: the server registers the new images itself. */
  needs_frontend_registration: z.boolean(),
  registration_data: z.array(EditedImage),
  virtual_folder_path: z.string(),
  failures: z.array(EditFailure),
});
export type ImageEditResult = z.infer<typeof ImageEditResult>;

export const ImageEditStatusResponse = z.object({
  edit_id: z.string(),
  project_id: z.string(),
  status: z.enum(IMAGE_EDIT_STATUSES),
  /** 0-100. */
  progress: z.number(),
  total_count: z.number(),
  /** Images generated (or failed) so far. */
  processed_count: z.number(),
  /** Images registered so far. */
  registered_count: z.number(),
  failed_count: z.number(),
  prompt: z.string(),
  seed: z.number(),
  provider: z.string(),
  error: z.string().nullable(),
  /** Present once the job has finished (completed or failed). */
  result: ImageEditResult.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ImageEditStatusResponse = z.infer<typeof ImageEditStatusResponse>;

export const ImageEditHealthResponse = z.object({
  status: z.enum(['healthy', 'degraded']),
  provider: z.enum(['builtin', 'remote']),
  model: z.string().nullable(),
  /** Host of the remote service (never its key). */
  endpoint: z.string().nullable(),
  /** Prompts the built-in provider understands (empty for remote). */
  vocabulary: z.array(z.string()),
  workers: z.number(),
  queue: z.object({ queued: z.number(), running: z.number() }),
  last_error: z.string().nullable(),
});
export type ImageEditHealthResponse = z.infer<typeof ImageEditHealthResponse>;

/** The progress text of spec section 8 for a status (null while there is nothing to say). */
export function editProgressText(s: Pick<ImageEditStatusResponse, 'status' | 'processed_count' | 'failed_count' | 'error' | 'result'>): string {
  switch (s.status) {
    case 'queued':
      return 'Starting image editing...';
    case 'processing':
      return 'Generating image edit...';
    case 'registering': {
      const n = Math.max(0, s.processed_count - s.failed_count);
      return `Registering ${n} new image${n === 1 ? '' : 's'}...`;
    }
    case 'completed': {
      const r = s.result;
      if (!r) return 'Completed! 0 new images generated.';
      const unregistered = r.failures.filter((f) => f.stage === 'register').length;
      if (unregistered > 0) return `Edit completed (${r.successful_count}/${r.total_count} successful) but registration failed. Please refresh page.`;
      if (r.failed_count === 0) return `Completed! ${r.successful_count} new image${r.successful_count === 1 ? '' : 's'} generated.`;
      return `Completed! ${r.successful_count}/${r.total_count} images edited successfully. ${r.failed_count} failed.`;
    }
    case 'failed':
      return `Error: ${s.error ?? 'The edit failed'}`;
  }
}
