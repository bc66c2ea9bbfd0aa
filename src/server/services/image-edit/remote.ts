// The remote edit provider: any HTTP service speaking the widely implemented images-edit shape
// (OpenAI's POST /v1/images/edits and the many servers that copy it): multipart/form-data with
// `image` (the file), `prompt`, `model` and `n`, answered by JSON `{"data": [{"b64_json": ...} or
// {"url": ...}]}`, or by the image bytes themselves. Each request has a timeout; timeouts, network
// errors, 429 and 5xx are retried with backoff; other 4xx fail the image with the service's message.
import type { ImageEditConfig } from '../../config';
import { detectImageType } from '../thumbnails';
import { EditFailure, type EditInput, type EditOutput, type EditProvider } from './provider';
import sharp, { type Metadata } from 'sharp';

const RETRY_BASE_MS = 500;
const MAX_RETRY_AFTER_MS = 30_000;
const MAX_RESPONSE_BYTES = 200 * 1024 * 1024;

function slugOfPrompt(prompt: string): string {
  const words = prompt
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9\s]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w && !['a', 'an', 'the', 'it', 'make', 'to', 'into', 'of', 'and', 'with', 'please'].includes(w));
  return words.slice(0, 4).join('_').slice(0, 40) || 'edit';
}

function serviceMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown; detail?: unknown };
    const e = parsed.error;
    if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
    if (typeof e === 'string') return e;
    if (typeof parsed.message === 'string') return parsed.message;
    if (typeof parsed.detail === 'string') return parsed.detail;
  } catch {
    /* not JSON */
  }
  return body.replace(/\s+/g, ' ').trim().slice(0, 300) || 'no message';
}

class Retryable extends Error {
  constructor(
    message: string,
    readonly afterMs: number | null = null,
  ) {
    super(message);
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

async function readLimited(res: Response): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_RESPONSE_BYTES) throw new EditFailure(`The edit service answered ${declared} bytes; at most ${MAX_RESPONSE_BYTES} are accepted`);
  const buf = Buffer.from(await res.arrayBuffer());
  if (buf.length > MAX_RESPONSE_BYTES) throw new EditFailure(`The edit service answered more than ${MAX_RESPONSE_BYTES} bytes`);
  return buf;
}

// Long because it is the provider object: plan and edit share the URL, key, timeout and fetch they
// close over.
export function createRemoteProvider(config: ImageEditConfig, fetchImpl: typeof fetch = fetch): EditProvider {
  const url = config.url!;
  let lastError: string | null = null;

  async function attempt(input: EditInput): Promise<Buffer> {
    const form = new FormData();
    const ext = input.mime === 'image/jpeg' ? 'jpg' : input.mime.split('/')[1]!.replace('svg+xml', 'svg');
    form.append('image', new Blob([new Uint8Array(input.bytes)], { type: input.mime }), input.filename.replace(/\.[^.]+$/, '') + `.${ext}`);
    form.append('prompt', input.prompt);
    if (config.model) form.append('model', config.model);
    form.append('n', '1');
    if (config.sendParams) {
      if (input.negativePrompt) form.append('negative_prompt', input.negativePrompt);
      form.append('num_inference_steps', String(input.steps));
      form.append('guidance_scale', String(input.guidance));
      form.append('true_cfg_scale', String(input.trueCfg));
      form.append('seed', String(input.seed));
    }
    const timeout = AbortSignal.timeout(config.timeoutMs);
    const signal = AbortSignal.any([timeout, input.signal]);
    const headers: Record<string, string> = { accept: 'application/json, image/*' };
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    let res: Response;
    try {
      res = await fetchImpl(url, { method: 'POST', body: form, headers, signal });
    } catch (err) {
      if (input.signal.aborted) throw err;
      if (timeout.aborted) throw new Retryable(`The edit service did not answer within ${config.timeoutMs / 1000} s`);
      throw new Retryable(`The edit service could not be reached: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
    }
    try {
      if (res.status === 429 || res.status >= 500) {
        const after = Number(res.headers.get('retry-after'));
        throw new Retryable(`The edit service answered ${res.status}: ${serviceMessage(await res.text())}`, Number.isFinite(after) && after > 0 ? Math.min(after * 1000, MAX_RETRY_AFTER_MS) : null);
      }
      if (!res.ok) throw new EditFailure(`The edit service refused the image (${res.status}): ${serviceMessage(await res.text())}`);
      const type = res.headers.get('content-type') ?? '';
      if (type.startsWith('image/')) return await readLimited(res);
      const body = await readLimited(res);
      let parsed: { data?: { b64_json?: unknown; url?: unknown }[] };
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        throw new EditFailure('The edit service answered neither an image nor JSON');
      }
      const first = parsed.data?.[0];
      if (first && typeof first.b64_json === 'string') return Buffer.from(first.b64_json, 'base64');
      if (first && typeof first.url === 'string' && /^(https?:|data:)/.test(first.url)) {
        if (first.url.startsWith('data:')) return Buffer.from(first.url.slice(first.url.indexOf(',') + 1), 'base64');
        const img = await fetchImpl(first.url, { signal });
        if (!img.ok) throw new Retryable(`Downloading the edited image failed: ${img.status}`);
        return await readLimited(img);
      }
      throw new EditFailure('The edit service answered no image (expected data[0].b64_json or data[0].url)');
    } catch (err) {
      if (timeout.aborted && !input.signal.aborted && !(err instanceof EditFailure)) throw new Retryable(`The edit service did not answer within ${config.timeoutMs / 1000} s`);
      throw err;
    }
  }

  return {
    kind: 'remote',
    model: config.model,
    endpoint: new URL(url).host,
    vocabulary: [],
    lastError: () => lastError,
    plan(prompt) {
      return { ok: true, slug: slugOfPrompt(prompt), transforms: [], labelMode: 'copy' };
    },
    async edit(input: EditInput): Promise<EditOutput> {
      let bytes: Buffer;
      for (let n = 0; ; n++) {
        try {
          bytes = await attempt(input);
          lastError = null;
          break;
        } catch (err) {
          if (input.signal.aborted) throw err;
          const message = (err as Error).message;
          if (err instanceof Retryable) {
            lastError = message;
            if (n < config.retries) {
              await sleep(err.afterMs ?? RETRY_BASE_MS * 2 ** n, input.signal);
              continue;
            }
            throw new EditFailure(config.retries > 0 ? `${message} (tried ${config.retries + 1} times)` : message);
          }
          if (err instanceof EditFailure) {
            lastError = message;
            throw err;
          }
          throw err;
        }
      }
      const mime = detectImageType(bytes.subarray(0, 4096));
      if (mime !== 'image/png' && mime !== 'image/jpeg' && mime !== 'image/webp' && mime !== 'image/gif') {
        throw new EditFailure('The edit service answered something that is not a PNG, JPEG, WebP or GIF image');
      }
      let meta: Metadata;
      try {
        meta = await sharp(bytes, { limitInputPixels: 400_000_000 }).metadata();
      } catch (err) {
        throw new EditFailure(`The edited image could not be read: ${(err as Error).message.split('\n')[0]}`);
      }
      const width = meta.autoOrient?.width ?? meta.width ?? 0;
      const height = meta.autoOrient?.height ?? meta.height ?? 0;
      if (!width || !height) throw new EditFailure('The edited image has no pixels');
      return { bytes, mime, width, height, transforms: [], labelMode: 'copy' };
    },
  };
}
