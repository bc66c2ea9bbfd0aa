// The scripted camera path shared by the benchmark and the profile.
import type { CameraState } from '../../../src/engine';
import type { BenchScene } from '../../lib/render/scenes';

export const VW = 800, VH = 600;

/** The scripted camera path: a pan across the image, then a zoom in about the centre. */
export function cameraPath(scene: BenchScene): CameraState[] {
  const { width: W, height: H } = scene.image;
  const s0 = Math.max(0.1, Math.min((VW - 40) / W, (VH - 40) / H));
  const out: CameraState[] = [];
  const n = scene.steps, half = Math.floor(n / 2);
  for (let i = 0; i < half; i++) {
    const t = i / Math.max(1, half - 1);
    const cx = W * (0.25 + 0.5 * t), cy = H * (0.4 + 0.2 * t);
    out.push({ scale: s0, x: VW / 2 - cx * s0, y: VH / 2 - cy * s0 });
  }
  for (let i = 0; i < n - half; i++) {
    const s = s0 * 1.1 ** (i + 1);
    out.push({ scale: s, x: VW / 2 - (W / 2) * s, y: VH / 2 - (H / 2) * s });
  }
  return out;
}

