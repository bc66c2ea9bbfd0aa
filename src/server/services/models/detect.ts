// Detection from the request side: sharp (libuv's threads) resizes the image to the model's input
// square, and an offload thread runs the model (detect-thread.ts), so the event loop only waits.
import sharp from 'sharp';
import { offload } from '../../offload/pool';
import { DEFAULT_DETECT_OPTIONS, type Detection, type DetectOptions, type DetectorSpec } from './detector-spec';
import type { Letterbox, YoloDetection, YoloSpec } from './yolo-thread';

/** The image's pixels stretched to the model's input square (as the detectors were trained: no letterbox), and its own size. */
export async function inputPixels(image: Buffer, inputSize: number): Promise<{ rgb: Uint8Array; width: number; height: number }> {
  const meta = await sharp(image).metadata();
  const width = meta.autoOrient?.width ?? meta.width ?? inputSize;
  const height = meta.autoOrient?.height ?? meta.height ?? inputSize;
  const data = await sharp(image).autoOrient().removeAlpha().toColourspace('srgb').resize(inputSize, inputSize, { fit: 'fill' }).raw().toBuffer();
  return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height };
}

/** The detections of one image (encoded bytes), boxes in its own pixels. */
export async function detect(spec: DetectorSpec, image: Buffer, opts: Partial<DetectOptions> = {}): Promise<Detection[]> {
  const { rgb, width, height } = await inputPixels(image, spec.inputSize);
  return offload('detectObjects', [spec, rgb, width, height, { ...DEFAULT_DETECT_OPTIONS, ...opts }], [rgb.buffer]);
}

/** Ultralytics' letterbox grey. */
const PAD = { r: 114, g: 114, b: 114 };

/**
 * The image scaled to fit the model's input square, aspect kept, centred on grey padding (as
 * Ultralytics YOLO models are trained and exported), with where it sits in the square.
 */
export async function letterboxPixels(image: Buffer, inputSize: number): Promise<{ rgb: Uint8Array; lb: Letterbox }> {
  const meta = await sharp(image).metadata();
  const width = meta.autoOrient?.width ?? meta.width ?? inputSize;
  const height = meta.autoOrient?.height ?? meta.height ?? inputSize;
  const r = Math.min(inputSize / width, inputSize / height);
  const w = Math.max(1, Math.min(inputSize, Math.round(width * r)));
  const h = Math.max(1, Math.min(inputSize, Math.round(height * r)));
  const padX = Math.round((inputSize - w) / 2 - 0.1);
  const padY = Math.round((inputSize - h) / 2 - 0.1);
  const data = await sharp(image)
    .autoOrient()
    .removeAlpha()
    .toColourspace('srgb')
    .resize(w, h, { fit: 'fill' })
    .extend({ top: padY, bottom: inputSize - h - padY, left: padX, right: inputSize - w - padX, background: PAD })
    .raw()
    .toBuffer();
  return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), lb: { width, height, scaleX: w / width, scaleY: h / height, padX, padY } };
}

/** An uploaded YOLO model's detections (and masks) of one image (encoded bytes), in its own pixels. */
export async function detectWithYolo(spec: YoloSpec, image: Buffer, opts: Partial<DetectOptions> = {}): Promise<YoloDetection[]> {
  const { rgb, lb } = await letterboxPixels(image, spec.inputSize);
  return offload('detectYolo', [spec, rgb, lb, { ...DEFAULT_DETECT_OPTIONS, ...opts }], [rgb.buffer]);
}
