// Models (issue 34): an organization's registry of models that can pre-label images. GET
// /api/v1/models lists the built-in ones (every organization has them) and the organization's own:
// an ONNX file (an Ultralytics YOLOv5/v8/11 detect or segment export: POST, PUT the file to the
// upload URL, then POST .../activate) or an HTTP endpoint (docs/models.md has its JSON).
import { z } from 'zod';
import { storedText } from './text';

export const MODEL_KINDS = ['detect', 'segment', 'pose'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];
export const MODEL_SOURCES = ['builtin', 'onnx', 'http'] as const;
export type ModelSource = (typeof MODEL_SOURCES)[number];
/** An ONNX model is 'pending' until its file is uploaded and activated; the others are 'ready'. */
export const MODEL_STATUSES = ['pending', 'ready'] as const;

/** Largest ONNX file accepted (YOLO11x detect is about 220 MB). */
export const MAX_ONNX_BYTES = 250 * 1024 * 1024;
export const MAX_MODEL_CLASSES = 1000;
export const MAX_MODEL_HEADERS = 20;
/** Models an organization may register (the built-in ones not counted). */
export const MAX_MODELS_PER_ORGANIZATION = 100;

const name = storedText(z.string().trim().min(1, 'name is required').max(100, 'name: at most 100 characters'), 'name');
const className = storedText(z.string().min(1, 'class names may not be empty').max(100, 'class names: at most 100 characters'), 'classes');

export const Model = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(MODEL_KINDS),
  source: z.enum(MODEL_SOURCES),
  status: z.enum(MODEL_STATUSES),
  classes: z.array(z.string()),
  input_size: z.number().int().optional(),
  /** http: the endpoint (its headers are never shown: they may hold a secret) */
  url: z.string().optional(),
  /** onnx: the uploaded file's name and size */
  filename: z.string().optional(),
  size: z.number().int().optional(),
  /** built-in: the weights' package and licence */
  license: z.string().optional(),
  created_at: z.string().optional(),
});
export type Model = z.infer<typeof Model>;

export const ModelsQuery = z.object({ organization_id: z.uuid() });
export const ModelsResponse = z.object({ models: z.array(Model) });
export type ModelsResponse = z.infer<typeof ModelsResponse>;

export const CreateOnnxModelRequest = z.object({
  organization_id: z.uuid(),
  name,
  source: z.literal('onnx'),
  filename: storedText(z.string().min(1).max(255).regex(/\.onnx$/i, 'filename must end in .onnx'), 'filename'),
  size: z.number().int('size must be a whole number of bytes').positive('size must be positive').max(MAX_ONNX_BYTES, 'ONNX files may be at most 250 MB'),
});

const headerName = z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'header names: letters, digits and -');
const headerValue = z.string().max(4096, 'header values: at most 4096 characters').regex(/^[^\r\n]*$/, 'header values may not hold line breaks');

export const CreateHttpModelRequest = z.object({
  organization_id: z.uuid(),
  name,
  source: z.literal('http'),
  url: z.string().max(2000, 'url: at most 2000 characters'),
  kind: z.enum(MODEL_KINDS),
  classes: z.array(className).min(1, 'classes: at least one').max(MAX_MODEL_CLASSES, `classes: at most ${MAX_MODEL_CLASSES}`),
  headers: z
    .record(headerName, headerValue)
    .refine((h) => Object.keys(h).length <= MAX_MODEL_HEADERS, `headers: at most ${MAX_MODEL_HEADERS}`)
    .optional(),
});

export const CreateModelRequest = z.discriminatedUnion('source', [CreateOnnxModelRequest, CreateHttpModelRequest]);
export type CreateModelRequest = z.infer<typeof CreateModelRequest>;

export const CreateModelResponse = z.object({
  model: Model,
  /** onnx: PUT the file here (with `content_type`), then POST /api/v1/models/{id}/activate */
  upload_url: z.string().optional(),
  content_type: z.string().optional(),
});
export type CreateModelResponse = z.infer<typeof CreateModelResponse>;

export const ModelParams = z.object({ id: z.string().max(100) });
export const ModelResponse = z.object({ model: Model });
export const DeleteModelResponse = z.object({ success: z.literal(true) });

/** What Vellum POSTs to an HTTP model, one image per call. */
export interface HttpModelRequest {
  image_url: string;
  width: number;
  height: number;
  classes: string[];
}

/** What an HTTP model answers: boxes [x, y, w, h], polygons [x0, y0, x1, y1, ...] or COCO RLE masks, in the image's pixels. */
export const HttpModelPrediction = z.union([
  z.object({ class: z.string().max(100), score: z.number().min(0).max(1), box: z.tuple([z.number(), z.number(), z.number().nonnegative(), z.number().nonnegative()]) }),
  z.object({ class: z.string().max(100), score: z.number().min(0).max(1), polygon: z.array(z.number()).min(6).max(20_000) }),
  z.object({ class: z.string().max(100), score: z.number().min(0).max(1), rle: z.object({ size: z.tuple([z.number().int(), z.number().int()]), counts: z.union([z.string().max(10_000_000), z.array(z.number().int()).max(1_000_000)]) }) }),
]);
export const HttpModelResponse = z.object({ predictions: z.array(HttpModelPrediction).max(10_000) });
export type HttpModelResponse = z.infer<typeof HttpModelResponse>;
