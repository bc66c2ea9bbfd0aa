// Detection from the request side: sharp (libuv's threads) resizes the image to the model's input
// square, and an offload thread runs the model (detect-thread.ts), so the event loop only waits.
import sharp from 'sharp';
import { offload } from '../../offload/pool';
import { DEFAULT_DETECT_OPTIONS, type Detection, type DetectOptions, type DetectorSpec } from './detector-spec';

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
