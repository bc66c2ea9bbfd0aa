// One interface for every edit provider; IMAGE_EDIT_PROVIDER picks one (docs/image-edit.md).
import type { ImageEditConfig } from '../../config';
import type { GeoStep } from './vocabulary';

/** A failure of one image, with a message a person can read; the job goes on with the others. */
export class EditFailure extends Error {}

export interface EditInput {
  bytes: Buffer;
  mime: string;
  filename: string;
  width: number;
  height: number;
  prompt: string;
  negativePrompt: string | null;
  steps: number;
  guidance: number;
  trueCfg: number;
  seed: number;
  signal: AbortSignal;
}

export interface EditOutput {
  bytes: Buffer;
  mime: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';
  width: number;
  height: number;
  /** Geometric steps applied, in order: the labels follow them exactly. */
  transforms: GeoStep[];
  /** exact: labels transformed exactly (built-in); copy: labels copied for review (generative). */
  labelMode: 'exact' | 'copy';
}

export type EditPlan = { ok: true; slug: string; transforms: GeoStep[]; labelMode: 'exact' | 'copy' } | { ok: false; error: string };

export interface EditProvider {
  kind: ImageEditConfig['provider'];
  model: string | null;
  /** Host of the remote service, for health (never the key). */
  endpoint: string | null;
  vocabulary: readonly string[];
  /** What a prompt will do, before any image is touched: the name tag of the copies, or why it cannot. */
  plan(prompt: string): EditPlan;
  edit(input: EditInput): Promise<EditOutput>;
  /** The last failure talking to the service (remote), null when the last call worked. */
  lastError(): string | null;
}
