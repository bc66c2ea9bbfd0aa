// Pixel-test page: window.vellumRender(scene, mode) renders a scene through createRenderer
// (worker or main-thread backend) and resolves when the frame is drawn and nothing is loading.
import { createRenderer, type RendererHandle } from '../../../src/workers/render-client';
import { DEFAULT_DISPLAY } from '../../../src/workers/protocol';
import { scenes } from '../scenes';

let current: RendererHandle | null = null;

async function render(name: string, mode: 'worker' | 'main', extra: { impostors?: boolean; compaction?: boolean; fused?: boolean } = {}): Promise<unknown> {
  current?.dispose();
  const old = document.getElementById('c')!;
  const canvas = document.createElement('canvas');
  canvas.id = 'c';
  old.replaceWith(canvas); // a canvas transferred to a worker cannot be reused
  const scene = await scenes[name]!();
  current = createRenderer({ canvas, editor: scene.editor, imageSource: scene.image, mode, classColor: scene.classColor, maxTextureSize: scene.maxTextureSize, tileSize: 512, ...extra });
  current.setDisplay({ ...DEFAULT_DISPLAY, labels: false, ...scene.display });
  let stats = await current.idle();
  let beforeChange: unknown = null;
  if (scene.afterFirstPicture) {
    beforeChange = await current.idle();
    await scene.afterFirstPicture(current!);
    stats = await current.idle();
  }
  // one more idle: tiles requested by the first frame
  return { ...(await current.idle()), first: stats, beforeChange };
}

Object.assign(window, { vellumRender: render, vellumReady: true });
