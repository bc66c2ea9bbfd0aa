// Frame-cost breakdown of Vellum's renderer (bench/render/profile.ts drives it): the Renderer on
// the page's main thread (same WebGL as the worker: SwiftShader in the GPU process), each part of
// a frame switched off in turn, over the same scripted camera path as the benchmark.
import { Editor, SceneTracker, type CameraState } from '../../../src/engine';
import { defaultClassColor, packScene, parseColor, splitDiff } from '../../../src/workers/pack';
import { Renderer } from '../../../src/workers/renderer';
import { benchScenes } from '../../lib/render/scenes';
import { cameraPath, VH, VW } from './path';

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]! : NaN;
};

/** The renderer's draw commands (src/workers/programs.ts) switched off in turn. */
type Parts = 'image' | 'mask' | 'fill' | 'dots' | 'compact' | 'line';
const PARTS: Parts[] = ['image', 'mask', 'fill', 'dots', 'compact', 'line'];

/** A new VW x VH canvas, alone on the stage. */
function freshCanvas(): HTMLCanvasElement {
  const stage = document.getElementById('stage')!;
  const canvas = document.createElement('canvas');
  canvas.width = VW;
  canvas.height = VH;
  stage.replaceChildren(canvas);
  return canvas;
}

/** The editor's scene into the renderer in parts of 500 shapes, as the render client posts it. */
export function loadScene(r: Renderer, editor: Editor): void {
  const tracker = new SceneTracker(editor);
  const colorOf = (c: string) => parseColor(defaultClassColor(c));
  for (;;) {
    const diff = tracker.pull(500);
    for (const p of splitDiff(diff, 500)) if (p.items.length || p.reset) r.applyScene(packScene(p, p.items, colorOf));
    if (!diff.more) break;
  }
}

/**
 * A Renderer on the page's thread (dpr 1, 512 px tiles) with the scene loaded in parts of 500 (as
 * the client posts it), the image set and the camera at the path's start, idle. `fused`: with the
 * fused path (src/workers/fused.ts), else the passes drawn directly.
 */
export async function profiledRenderer(sceneName: string, steps: number, fused: boolean): Promise<{ r: Renderer; path: CameraState[] }> {
  const scene = benchScenes[sceneName]!();
  scene.steps = steps;
  const canvas = freshCanvas();
  const editor = new Editor({ viewport: { width: VW, height: VH }, image: scene.image });
  await editor.loadAsync(scene.annotations);
  const r = new Renderer(canvas, { width: VW, height: VH, dpr: 1, tileSize: 512, fused }, 'main');
  // ?detach: the canvas is not in the page, so frames do not wait for the compositor's
  if (new URLSearchParams(location.search).has('detach')) canvas.remove();
  loadScene(r, editor);
  await r.setImage({ kind: 'pattern', width: scene.image.width, height: scene.image.height });
  const path = cameraPath(scene);
  r.setCamera(path[0]!);
  await r.idle();
  await r.idle();
  return { r, path };
}

// Long because it runs in the page as one piece: the same scene and camera path drawn with each
// pass switched off in turn, the GL costs read between frames, in one renderer's lifetime.
export async function benchProfile(sceneName: string, steps = 10, reps = 3, warm = true): Promise<Record<string, unknown>> {
  // the passes drawn directly (the fused path has its own profile: fused-profile.ts)
  const { r, path } = await profiledRenderer(sceneName, steps, false);
  if (!warm) {
    // cold: the benchmark's order (cell levels and tiles built as the path reaches them)
    r.measure = true;
    r.frameTimes.length = 0;
    const b0 = r.stats().buildMs;
    const per: string[] = [];
    for (const cam of path) {
      const before = r.stats().buildMs;
      r.setCamera(cam);
      await r.idle();
      per.push(`${r.frameTimes.map((x) => x.toFixed(1)).join('+')} (build ${(r.stats().buildMs - before).toFixed(1)})`);
      r.frameTimes.length = 0;
    }
    return { cold: per, buildMs: r.stats().buildMs - b0 };
  }
  // warm every camera (cell buffers per level, tiles)
  for (const cam of path) {
    r.setCamera(cam);
    await r.idle();
    await r.idle();
  }
  r.measure = true;
  const programs = (r as any).programs;
  const saved = Object.fromEntries(PARTS.map((p) => [p, programs[p]]));
  const run = async (on: Parts[], pathHere: CameraState[] = path) => {
    for (const p of PARTS) programs[p] = on.includes(p) ? saved[p] : () => undefined;
    const all: number[] = [];
    for (let k = 0; k < reps; k++) {
      r.frameTimes.length = 0;
      for (const cam of pathHere) {
        r.setCamera(cam);
        await r.idle();
      }
      all.push(...r.frameTimes);
    }
    return { min: +Math.min(...all).toFixed(2), q25: +q(all, 0.25).toFixed(2), med: +q(all, 0.5).toFixed(2), p95: +q(all, 0.95).toFixed(2), n: all.length, frames: r.frameTimes.map((x) => +x.toFixed(1)) };
  };
  const out: Record<string, unknown> = {};
  {
    const rr = r as any;
    const draw = rr.draw;
    const js: number[] = [];
    rr.draw = function (this: any) {
      const t = performance.now();
      draw.call(this);
      js.push(performance.now() - t);
    };
    out.empty = await run([]);
    out.emptyDrawJs = { med: +q(js, 0.5).toFixed(2), p95: +q(js, 0.95).toFixed(2) };
    js.length = 0;
    // without the closing gl.flush()
    const gl = rr.gl;
    const flush = gl.flush;
    gl.flush = () => undefined;
    out.emptyNoFlush = await run([]);
    gl.flush = flush;
    rr.draw = draw;
  }
  {
    // the same frame without the renderer's own work: only regl's clear and the readback
    const rr = r as any;
    const draw = rr.draw;
    rr.draw = function (this: any) {
      this.regl.clear({ color: [0.1, 0.1, 0.15, 1] });
    };
    out.clearOnly = await run([]);
    rr.draw = draw;
  }
  out.image = await run(['image']);
  out.masks = await run(['mask']);
  out.fills = await run(['fill']);
  out.lines = await run(['line']);
  out.compact = await run(['compact']);
  out.dots = await run(['dots']);
  out.imageAndDots = await run(['image', 'dots']);
  out.full = await run(PARTS);
  out.imagePan = await run(['image'], path.slice(0, Math.floor(path.length / 2)));
  out.stats = r.stats();
  // raw WebGL: clear + 1 px readback on a fresh context, no regl
  {
    // displayed, as the renderer's canvas is (its present is in the GPU process too)
    const c2 = freshCanvas();
    const gl = c2.getContext('webgl', { alpha: false, antialias: false, depth: false, stencil: false })!;
    const px = new Uint8Array(4);
    const ts: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      gl.clearColor(0.1, 0.1, 0.2, 1);
      gl.clear(gl.COLOR_BUFFER_BIT);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
      ts.push(performance.now() - t0);
      await new Promise((res) => requestAnimationFrame(res));
    }
    out.rawClearReadback = { med: +q(ts, 0.5).toFixed(2), p95: +q(ts, 0.95).toFixed(2) };
    gl.getExtension('WEBGL_lose_context')?.loseContext();
  }
  r.dispose();
  return out;
}

/**
 * SwiftShader's costs in isolation (raw WebGL on an 800 x 600 canvas, in the page unless ?detach,
 * each frame ended by a 1 px readback): an empty frame, 10k small quads (of 1, 5 and 10 px, off
 * the canvas; in one draw or split into K), points, a full-screen textured quad, new tile textures.
 */
export async function glCosts(frames = 20): Promise<Record<string, unknown>> {
  const c = freshCanvas();
  if (new URLSearchParams(location.search).has('detach')) c.remove();
  const gl = c.getContext('webgl', { alpha: false, antialias: false, depth: false, stencil: false, premultipliedAlpha: true })!;
  const sh = (type: number, src: string) => {
    const s = gl.createShader(type)!;
    gl.shaderSource(s, src);
    gl.compileShader(s);
    return s;
  };
  const prog = (vs: string, fs: string) => {
    const p = gl.createProgram()!;
    gl.attachShader(p, sh(gl.VERTEX_SHADER, vs));
    gl.attachShader(p, sh(gl.FRAGMENT_SHADER, fs));
    gl.linkProgram(p);
    return p;
  };
  const flat = prog('attribute vec2 p; void main(){ gl_Position = vec4(p / vec2(400.0, -300.0) + vec2(-1.0, 1.0), 0.0, 1.0); }', 'precision mediump float; void main(){ gl_FragColor = vec4(0.3, 0.2, 0.1, 0.5); }');
  const texd = prog('attribute vec2 p; varying vec2 uv; void main(){ uv = p; gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0); }', 'precision mediump float; uniform sampler2D t; varying vec2 uv; void main(){ gl_FragColor = texture2D(t, uv); }');
  // 10k quads of 5 x 5 px over the canvas
  const N = 10_000, side = 5;
  const v = new Float32Array(N * 12);
  for (let i = 0; i < N; i++) {
    const x = (i * 7919) % (VW - side), y = (i * 104729) % (VH - side);
    v.set([x, y, x + side, y, x, y + side, x, y + side, x + side, y, x + side, y + side], i * 12);
  }
  const buf = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buf);
  gl.bufferData(gl.ARRAY_BUFFER, v, gl.STATIC_DRAW);
  const full = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, full);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1]), gl.STATIC_DRAW);
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  const px = new Uint8Array(1024 * 1024 * 4).map((_, i) => (i * 37) & 255);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1024, 1024, 0, gl.RGBA, gl.UNSIGNED_BYTE, px);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  const probe = new Uint8Array(4);
  const time = async (body: () => void) => {
    const ts: number[] = [];
    for (let f = 0; f < frames; f++) {
      await new Promise((r) => requestAnimationFrame(r));
      const t0 = performance.now();
      gl.clearColor(0.1, 0.1, 0.15, 1);
      gl.clear(gl.COLOR_BUFFER_BIT);
      body();
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, probe);
      ts.push(performance.now() - t0);
    }
    return { med: +q(ts, 0.5).toFixed(2), min: +Math.min(...ts).toFixed(2), p95: +q(ts, 0.95).toFixed(2) };
  };
  const quads = (draws: number, blend: boolean) => () => {
    gl.useProgram(flat);
    gl.bindBuffer(gl.ARRAY_BUFFER, buf);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
    if (blend) {
      gl.enable(gl.BLEND);
      gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    } else gl.disable(gl.BLEND);
    const per = Math.floor(N / draws) * 6;
    for (let d = 0; d < draws; d++) gl.drawArrays(gl.TRIANGLES, d * per, per);
  };
  const image = () => {
    gl.disable(gl.BLEND);
    gl.useProgram(texd);
    gl.bindBuffer(gl.ARRAY_BUFFER, full);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.drawArrays(gl.TRIANGLES, 0, 6);
  };
  const pts = prog('attribute vec2 p; void main(){ gl_PointSize = 5.0; gl_Position = vec4(p / vec2(400.0, -300.0) + vec2(-1.0, 1.0), 0.0, 1.0); }', 'precision mediump float; void main(){ gl_FragColor = vec4(0.3, 0.2, 0.1, 0.5); }');
  const points = () => {
    gl.useProgram(pts);
    gl.bindBuffer(gl.ARRAY_BUFFER, buf);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 6 * 8, 0); // the first corner of each quad
    gl.enable(gl.BLEND);
    gl.drawArrays(gl.POINTS, 0, N);
  };
  const ptsD = prog('attribute vec2 p; varying vec2 h; void main(){ h = vec2(2.0, 1.5); gl_PointSize = 5.0; gl_Position = vec4(p / vec2(400.0, -300.0) + vec2(-1.0, 1.0), 0.0, 1.0); }', 'precision mediump float; varying vec2 h; void main(){ vec2 d = abs(gl_PointCoord - 0.5) * 5.0; if (d.x > h.x || d.y > h.y) discard; gl_FragColor = vec4(0.3, 0.2, 0.1, 0.5); }');
  const pointsDiscard = () => {
    gl.useProgram(ptsD);
    gl.bindBuffer(gl.ARRAY_BUFFER, buf);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 6 * 8, 0);
    gl.enable(gl.BLEND);
    gl.drawArrays(gl.POINTS, 0, N);
  };
  const out: Record<string, unknown> = {};
  // 10k quads of side px at dx (2000: all outside the canvas): per-triangle vs per-pixel cost
  const quadsAt = (side: number, dx = 0) => {
    const vv = new Float32Array(N * 12);
    for (let i = 0; i < N; i++) {
      const x = dx + ((i * 7919) % (VW - side)), y = (i * 104729) % (VH - side);
      vv.set([x, y, x + side, y, x, y + side, x, y + side, x + side, y, x + side, y + side], i * 12);
    }
    const b = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, vv, gl.STATIC_DRAW);
    return () => {
      gl.useProgram(flat);
      gl.bindBuffer(gl.ARRAY_BUFFER, b);
      gl.enableVertexAttribArray(0);
      gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
      gl.enable(gl.BLEND);
      gl.drawArrays(gl.TRIANGLES, 0, N * 6);
    };
  };
  out.quads10k1px = await time(quadsAt(1));
  out.quads10k10px = await time(quadsAt(10));
  out.quads10kOffCanvas = await time(quadsAt(5, 2000));
  // 512 px image tiles: four new textures from ImageBitmaps (or arrays), drawn full-screen, vs four made before
  {
    const data = new Uint8Array(512 * 512 * 4).map((_, i) => (i * 31) & 255);
    const bitmap = await createImageBitmap(new ImageData(new Uint8ClampedArray(data.buffer), 512, 512));
    const drawTex = (t: WebGLTexture) => {
      gl.bindTexture(gl.TEXTURE_2D, t);
      for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D, p, gl.LINEAR);
      for (const p of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T]) gl.texParameteri(gl.TEXTURE_2D, p, gl.CLAMP_TO_EDGE);
      image();
    };
    const made = (src: 'bitmap' | 'array') => {
      const t = gl.createTexture()!;
      gl.bindTexture(gl.TEXTURE_2D, t);
      if (src === 'bitmap') gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, bitmap);
      else gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 512, 512, 0, gl.RGBA, gl.UNSIGNED_BYTE, data);
      return t;
    };
    const old = [0, 1, 2, 3].map(() => made('bitmap'));
    out.tiles4Made = await time(() => old.forEach(drawTex));
    out.tiles4NewFromBitmaps = await time(() => [0, 1, 2, 3].forEach(() => drawTex(made('bitmap'))));
    out.tiles4NewFromArrays = await time(() => [0, 1, 2, 3].forEach(() => drawTex(made('array'))));
    // first use of textures made (and flushed) in an earlier task, after the GPU went idle
    const firstUse: number[] = [], secondUse: number[] = [], warmed: number[] = [];
    const fbo = gl.createFramebuffer();
    const fboTex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, fboTex);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1, 1, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
    gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, fboTex, 0);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    for (let k = 0; k < 6; k++) {
      for (const warm of [false, true]) {
        const ts = [0, 1, 2, 3].map(() => made('bitmap'));
        if (warm) {
          gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
          gl.viewport(0, 0, 1, 1);
          ts.forEach(drawTex);
          gl.bindFramebuffer(gl.FRAMEBUFFER, null);
          gl.viewport(0, 0, VW, VH);
        }
        gl.flush();
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, probe);
        await new Promise((r) => setTimeout(r, 60));
        for (const list of warm ? [warmed] : [firstUse, secondUse]) {
          await new Promise((r) => requestAnimationFrame(r));
          const t0 = performance.now();
          gl.clear(gl.COLOR_BUFFER_BIT);
          ts.forEach(drawTex);
          gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, probe);
          list.push(performance.now() - t0);
        }
      }
    }
    out.tiles4FirstUse = +q(firstUse, 0.5).toFixed(2);
    out.tiles4SecondUse = +q(secondUse, 0.5).toFixed(2);
    out.tiles4FirstUseAfterWarm = +q(warmed, 0.5).toFixed(2);
  }
  out.empty = await time(() => undefined);
  out.points10k = await time(points);
  out.points10kDiscard = await time(pointsDiscard);
  out.quads10kOneDraw = await time(quads(1, true));
  out.quads10kOneDrawNoBlend = await time(quads(1, false));
  out.quads10k24Draws = await time(quads(24, true));
  out.quads10k500Draws = await time(quads(500, true));
  out.image1024Linear = await time(image);
  // the same quad sampled nearest (the fused path's texel-for-texel frames), then linear again: the filter's own cost
  const filterOf = (f: number) => {
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, f);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, f);
  };
  filterOf(gl.NEAREST);
  out.image1024Nearest = await time(image);
  filterOf(gl.LINEAR);
  out.image1024LinearAgain = await time(image);
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return out;
}
