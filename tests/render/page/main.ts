// Pixel-test page: window.vellumRender(scene, mode, extra) draws a scene through createRenderer
// (worker or main-thread backend) and resolves when the frame is drawn and nothing is loading.
//
// As the SPA's editor screen, the page keeps one Editor and one renderer (one canvas, one WebGL
// context) and opens each scene in them as the next image: its document under a new key, then
// `setImage`. A renderer is made only for other construction options (mode, texture cap, the
// impostors / compaction / fused flags): in a new context each program's first draw costs
// SwiftShader 65-840 ms, most of a scene's CPU (tests/README.md, render.test).
import { createRenderer, type RendererHandle } from '../../../src/workers/render-client';
import { DEFAULT_DISPLAY, type RenderStats } from '../../../src/workers/protocol';
import type { Editor } from '../../../src/engine';
import { HEIGHT, newEditor, sceneOptions, scenes, WIDTH, type Scene } from '../scenes';

type Extra = { impostors?: boolean; compaction?: boolean; fused?: boolean };

/** Counters kept since the renderer started: the page reports them since the scene's start. */
const COUNTERS = ['impostorRenders', 'compactions', 'fusedRenders', 'fusedFrames', 'fusedScaledFrames', 'fusedScrolls', 'fusedAhead', 'fusedAheadLate', 'frames'] as const;

let current: { handle: RendererHandle; editor: Editor; options: string } | null = null;
/** Ends the gesture a held scene left open (Scene.held), once the test has its picture. */
let held: (() => Promise<unknown>) | null = null;
/** The shown scene's class colours (the renderer's classColor reads them, as the SPA's reads the project's). */
let colorOf: Scene['classColor'] = () => '#000000';

/** A new canvas, Editor and renderer for these options (a canvas transferred to a worker cannot be reused). */
function newRenderer(mode: 'worker' | 'main', options: Extra & { maxTextureSize?: number }, key: string) {
  current?.handle.dispose();
  const canvas = document.createElement('canvas');
  canvas.id = 'c';
  document.getElementById('c')!.replaceWith(canvas);
  const editor = newEditor();
  // as EditorCanvas: made with no image; each scene's image comes with setImage
  const handle = createRenderer({ canvas, editor, imageSource: null, mode, classColor: (c) => colorOf(c), tileSize: 512, ...options });
  current = { handle, editor, options: key };
  return current;
}

/** A scene that resized the canvas (scenes.ts, resizeView) leaves it for the next one at the page's size. */
function unsize(handle: RendererHandle, editor: Editor): void {
  const canvas = document.getElementById('c')!;
  if (!canvas.style.width) return;
  canvas.style.width = canvas.style.height = '';
  handle.resize(WIDTH, HEIGHT);
  editor.setViewport({ width: WIDTH, height: HEIGHT });
}

async function render(name: string, mode: 'worker' | 'main', extra: Extra = {}): Promise<unknown> {
  const options = { ...sceneOptions[name], ...extra };
  // the defaults spelled out: `fused: true` and no flag are the same renderer
  const key = JSON.stringify([mode, options.maxTextureSize ?? null, options.impostors ?? false, options.compaction ?? true, options.fused ?? true]);
  const { handle, editor } = current?.options === key ? current : newRenderer(mode, options, key);
  unsize(handle, editor);
  const start = await handle.stats();
  const since = (s: RenderStats) => ({ ...s, ...Object.fromEntries(COUNTERS.map((k) => [k, s[k] - start[k]])) });
  const scene = await scenes[name]!(editor);
  if (scene.classColor !== colorOf) {
    colorOf = scene.classColor;
    handle.refreshColors();
  }
  handle.setDisplay({ ...DEFAULT_DISPLAY, labels: false, ...scene.display });
  await handle.setImage(scene.image);
  let stats = await handle.idle();
  let beforeChange: unknown = null;
  if (scene.afterFirstPicture) {
    beforeChange = since(await handle.idle());
    await scene.afterFirstPicture(handle);
    if (scene.held) {
      // the gesture is still on: the test takes its picture, then vellumRelease ends it
      const { release } = scene.held;
      held = async () => {
        release();
        return since(await handle.idle());
      };
      return { ...since(await handle.stats()), beforeChange };
    }
    stats = await handle.idle();
  }
  // one more idle: tiles requested by the first frame
  return { ...since(await handle.idle()), first: since(stats), beforeChange };
}

/** Ends the gesture a held scene left open (Scene.held) and resolves, at rest, to the stats since the scene's start. */
async function release(): Promise<unknown> {
  const end = held;
  held = null;
  if (!end) throw new Error('no scene is held');
  return end();
}

Object.assign(window, { vellumRender: render, vellumRelease: release, vellumReady: true });
