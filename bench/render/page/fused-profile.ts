// The fused path's profile (bench/render/profile.ts with BENCH_FUSED=1; src/workers/fused.ts): on
// one Renderer on the page's thread, warmed over the whole camera path (cell levels and tiles made:
// this is the shapes' cost, not the loading's), the pan and the zoom gesture drawn in variants
// interleaved rep by rep, each with its frames (wall ms until the pixels exist, the draw's JS ms,
// what the fused layer did) and the browser's CPU over it (every process, and SwiftShader's GPU
// process apart; read by the runner through window.cpuNow).
import type { CameraState } from '../../../src/engine';
import type { Renderer } from '../../../src/workers/renderer';
import { VH, VW } from './path';
import { profiledRenderer } from './profile';

interface Cpu { total: number; gpu: number }
/** One frame: wall ms (draw + 1 px readback), the draw's own JS ms, what the fused layer did, levels built in it (ms). */
interface Frame { ms: number; js: number; kind: string; buildMs: number }
interface Tally { frames: Frame[]; cpuMs: number; gpuMs: number; runs: number }

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]! : NaN;
};
const nextFrame = () => new Promise<number>((res) => requestAnimationFrame(res));
const cpuNow = async (): Promise<Cpu> => ((window as unknown as { cpuNow?: () => Promise<Cpu> }).cpuNow?.() ?? { total: NaN, gpu: NaN });

/** The shapes' draw commands (programs.ts) an image-only frame switches off. */
const SHAPE_PARTS = ['mask', 'fill', 'dots', 'compact', 'line', 'shapesTexture'] as const;

/** The renderer's internals the variants switch (private fields, reached as a benchmark may). */
interface Inside {
  programs: Record<string, unknown>;
  fused: { stats(): Record<string, number>; exactFilter: 'nearest' | 'linear' } | null;
  draw(): void;
}

/** Wraps the renderer's draw: each frame's JS ms, what the fused layer did in it and the levels built. */
function recordFrames(r: Renderer): { take(): Frame[] } {
  const inside = r as unknown as Inside;
  const draw = inside.draw;
  const js: { js: number; kind: string; buildMs: number }[] = [];
  inside.draw = function (this: Inside) {
    const s0 = this.fused?.stats() ?? {}, b0 = r.stats().buildMs;
    const t = performance.now();
    draw.call(this);
    const dt = performance.now() - t, s1 = this.fused?.stats() ?? {};
    const d = (k: string) => (s1[k] ?? 0) - (s0[k] ?? 0);
    const kind = d('fusedAheadLate') ? 'aheadLate' : d('fusedAhead') ? 'ahead' : d('fusedScrolls') ? 'scroll' : d('fusedRenders') ? 'texture' : d('fusedScaledFrames') ? 'scaled' : d('fusedFrames') ? 'reuse' : 'direct';
    js.push({ js: dt, kind, buildMs: r.stats().buildMs - b0 });
  };
  return {
    take() {
      const n = Math.min(js.length, r.frameTimes.length);
      const out = js.slice(-n).map((f, i) => ({ ...f, ms: r.frameTimes[r.frameTimes.length - n + i]! }));
      js.length = 0;
      r.frameTimes.length = 0;
      return out;
    },
  };
}

/**
 * Variants of one renderer: `imageOnly` (the shapes' passes off, no fused path: the ratio's
 * baseline), `direct` (every shape drawn each frame), `fused` (shipped), `linear` (fused, a pan's
 * frames sampling the texture linearly, as before session 29), `imagePass` (fused, the image's plain pass in place of the fused one:
 * what the second texel fetch costs).
 */
function variants(r: Renderer): Record<string, () => void> {
  const inside = r as unknown as Inside;
  const saved = { ...inside.programs }, fused = inside.fused;
  const reset = () => {
    Object.assign(inside.programs, saved);
    inside.fused = fused;
    if (fused) fused.exactFilter = 'nearest';
  };
  const off = () => undefined;
  return {
    imageOnly: () => {
      reset();
      for (const p of SHAPE_PARTS) inside.programs[p] = off;
      inside.fused = null;
    },
    direct: () => {
      reset();
      inside.fused = null;
    },
    fused: reset,
    linear: () => {
      reset();
      if (fused) fused.exactFilter = 'linear';
    },
    imagePass: () => {
      reset();
      [inside.programs.imageFused, inside.programs.shapesTexture] = [saved.image, off];
    },
  };
}

function summary(t: Tally): Record<string, unknown> {
  const ms = t.frames.map((f) => f.ms), js = t.frames.map((f) => f.js);
  const kinds: Record<string, number> = {};
  for (const f of t.frames) kinds[f.kind] = (kinds[f.kind] ?? 0) + 1;
  const n = Math.max(1, t.frames.length);
  return {
    frames: t.frames.length, kinds,
    msP50: +q(ms, 0.5).toFixed(1), msP95: +q(ms, 0.95).toFixed(1), jsP50: +q(js, 0.5).toFixed(1),
    cpuMsPerFrame: +(t.cpuMs / n).toFixed(1), gpuProcessMsPerFrame: +(t.gpuMs / n).toFixed(1), cpuMsPerRun: +(t.cpuMs / Math.max(1, t.runs)).toFixed(0),
    buildMs: +t.frames.reduce((a, f) => a + f.buildMs, 0).toFixed(1),
  };
}

/** Runs `body` under each variant in turn, `reps` times (the order reversed every other rep), with its frames and CPU; `start` before each, not measured. */
async function interleaved(r: Renderer, names: string[], reps: number, start: () => Promise<void>, body: () => Promise<void>): Promise<Record<string, Tally>> {
  const vs = variants(r), rec = recordFrames(r);
  const out: Record<string, Tally> = Object.fromEntries(names.map((n) => [n, { frames: [], cpuMs: 0, gpuMs: 0, runs: 0 }]));
  for (let k = 0; k < reps; k++) {
    for (const name of k % 2 ? [...names].reverse() : names) {
      vs[name]!();
      await start();
      rec.take();
      const c0 = await cpuNow();
      await body();
      const c1 = await cpuNow(), t = out[name]!;
      t.frames.push(...rec.take());
      t.cpuMs += (c1.total - c0.total) * 1000;
      t.gpuMs += (c1.gpu - c0.gpu) * 1000;
      t.runs++;
    }
  }
  vs.fused!();
  return out;
}

export async function fusedProfile(sceneName: string, steps = 12, reps = 3): Promise<Record<string, unknown>> {
  const { r, path } = await profiledRenderer(sceneName, steps, true);
  const half = Math.floor(path.length / 2), pan = path.slice(0, half), zoom = path.slice(half);
  // warm every camera at rest (cell levels, tiles), then measure
  for (const cam of path) {
    r.setCamera(cam);
    await r.idle();
  }
  r.measure = true;
  const at = async (cam: CameraState) => {
    r.setCamera(cam);
    await r.idle();
  };
  const out: Record<string, unknown> = {};
  // the pan: each step at rest, from the path's start (the jump back to it is not measured)
  const panTally = await interleaved(r, ['imageOnly', 'direct', 'fused', 'linear', 'imagePass'], reps, () => at(pan[0]!), async () => {
    for (const cam of pan.slice(1)) await at(cam);
  });
  // the zoom as a gesture: from the view before its first step (path.ts: 1.1x a step) at rest, a step an animation frame, then until idle (the settle)
  const z = zoom[0]!, s0 = z.scale / 1.1, cx = (VW / 2 - z.x) / z.scale, cy = (VH / 2 - z.y) / z.scale;
  const fit = { scale: s0, x: VW / 2 - cx * s0, y: VH / 2 - cy * s0 };
  const gestureTally = await interleaved(r, ['imageOnly', 'direct', 'fused'], reps, () => at(fit), async () => {
    for (const cam of zoom) {
      r.setCamera(cam);
      await nextFrame();
    }
    await r.idle();
  });
  for (const [path, t] of [['pan', panTally], ['gesture', gestureTally]] as const) {
    for (const [name, tally] of Object.entries(t)) out[`${path}/${name}`] = summary(tally);
    // each frame of the last rep, as kind:ms(js)
    out[`${path}Frames`] = Object.fromEntries(Object.entries(t).map(([n, x]) => [n, x.frames.slice(-Math.ceil(x.frames.length / reps)).map((f) => `${f.kind}:${f.ms.toFixed(0)}(${f.js.toFixed(0)})`).join(' ')]));
  }
  out.stats = r.stats();
  r.dispose();
  return out;
}
