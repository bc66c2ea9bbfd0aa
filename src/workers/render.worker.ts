// The render worker: owns the OffscreenCanvas (transferred from the page) and runs the shared
// Renderer. The page talks to it through comlink (RenderWorkerApi, see protocol.ts).
import * as Comlink from 'comlink';
import { Renderer } from './renderer';
import type { FrameCounts, RenderWorkerApi } from './protocol';
import { takeFrameCounts } from './gl-counter';

let renderer: Renderer | null = null;
const need = (): Renderer => {
  if (!renderer) throw new Error('Render worker used before init()');
  return renderer;
};

const api: RenderWorkerApi & { setMeasure(on: boolean): void; frameTimes(clear: boolean): number[]; frameCounts(clear: boolean): FrameCounts } = {
  async init(canvas, options) {
    renderer?.dispose();
    renderer = new Renderer(canvas, options, 'worker');
    return { maxTextureSize: renderer.maxTextureSize };
  },
  setImage: (source, key) => need().setImage(source, key),
  preload: (key, source, camera) => need().preload(key, source, camera),
  hold: () => need().hold(),
  renewTiles: (levels) => need().renewTiles(levels),
  applyScene: (scene) => need().applyScene(scene),
  setView: (view) => need().setView(view),
  setDisplay: (display) => need().setDisplay(display),
  setIssues: (issues) => need().setIssues(issues),
  setCamera: (camera) => need().setCamera(camera),
  resize: (w, h, dpr) => need().resize(w, h, dpr),
  idle: () => need().idle(),
  stats: () => need().stats(),
  setMeasure(on) {
    need().setMeasure(on);
  },
  frameCounts: (clear) => takeFrameCounts(need(), clear),
  frameTimes(clear) {
    const r = need();
    const out = r.frameTimes.slice();
    if (clear) r.frameTimes.length = 0;
    return out;
  },
  dispose() {
    renderer?.dispose();
    renderer = null;
  },
};

export type RenderWorkerExposed = typeof api;

Comlink.expose(api);
