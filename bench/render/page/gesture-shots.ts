// The zoom gesture's scaled frames as a person sees them (bench/render/gesture-shots.ts drives it;
// src/workers/fused.ts): a Renderer on the page's thread at a given size and pixel ratio, the scene
// fitted, then zoom steps an animation frame apart about the view's centre; each step's frame is
// read back in the same frame (before the compositor takes it), then the same camera once the zoom
// rests (the texture drawn again at it: exact, as drawn directly).
import { Editor, type CameraState } from '../../../src/engine';
import { Renderer } from '../../../src/workers/renderer';
import { benchScenes } from '../../lib/render/scenes';
import { loadScene } from './profile';

const nextFrame = () => new Promise<number>((res) => requestAnimationFrame(res));

/** The canvas's drawing buffer now (a readback is quick; a PNG is made later, so the gesture's steps stay under the settle's 120 ms apart). */
function grab(canvas: HTMLCanvasElement): ImageData {
  const gl = canvas.getContext('webgl')!, w = canvas.width, h = canvas.height;
  const px = new Uint8Array(w * h * 4);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
  const img = new ImageData(w, h);
  for (let y = 0; y < h; y++) img.data.set(px.subarray((h - 1 - y) * w * 4, (h - y) * w * 4), y * w * 4); // rows bottom-up
  return img;
}

function png(img: ImageData): string {
  const c = document.createElement('canvas');
  [c.width, c.height] = [img.width, img.height];
  c.getContext('2d')!.putImageData(img, 0, 0);
  return c.toDataURL('image/png');
}

export interface GestureShot {
  step: number;
  scale: number;
  /** The frame during the gesture (PNG data URL) and what the fused layer showed. */
  during: string;
  scaled: boolean;
  /** The same camera at rest. */
  atRest: string;
}

/** `factors`: each step's zoom against the one before (1.1: in by 10%); `shots`: the steps read back at rest too; `fused: false`: drawn directly, to compare; `startZoom`: the gesture starts at this times the fit zoom. */
export async function gestureShots(sceneName: string, width: number, height: number, dpr: number, factors: number[], shots: number[], fused = true, startZoom = 1): Promise<GestureShot[]> {
  const scene = benchScenes[sceneName]!();
  const stage = document.getElementById('stage')!;
  const canvas = document.createElement('canvas');
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  stage.replaceChildren(canvas);
  const editor = new Editor({ viewport: { width, height }, image: scene.image });
  await editor.loadAsync(scene.annotations);
  const r = new Renderer(canvas, { width, height, dpr, tileSize: 512, fused }, 'main');
  loadScene(r, editor);
  await r.setImage({ kind: 'pattern', width: scene.image.width, height: scene.image.height });
  const { width: W, height: H } = scene.image;
  const at = (s: number): CameraState => ({ scale: s, x: width / 2 - (W / 2) * s, y: height / 2 - (H / 2) * s });
  let s = Math.min((width - 40) / W, (height - 40) / H) * startZoom;
  r.setCamera(at(s));
  await r.idle();
  await r.idle();
  // a pan first, so the texture is kept (a zoom from a frame at rest after a change starts from none)
  r.setCamera({ ...at(s), x: at(s).x + 3 });
  await r.idle();
  r.setCamera(at(s));
  await r.idle();
  const cams: CameraState[] = [], during: { img: ImageData; scaled: boolean }[] = [];
  for (const f of factors) {
    s *= f;
    const cam = at(s), scaled0 = r.stats().fusedScaledFrames;
    r.setCamera(cam);
    cams.push(cam);
    // runs after the renderer's frame callback (asked for by setCamera): its drawing buffer is still there
    await nextFrame();
    during.push({ img: grab(canvas), scaled: r.stats().fusedScaledFrames > scaled0 });
  }
  const out: GestureShot[] = [];
  await r.idle();
  for (const step of shots) {
    r.setCamera(cams[step]!);
    await r.idle();
    await r.idle();
    r.setCamera({ ...cams[step]! });
    await nextFrame();
    out.push({ step, scale: cams[step]!.scale, during: png(during[step]!.img), scaled: during[step]!.scaled, atRest: png(grab(canvas)) });
  }
  r.dispose();
  return out;
}
