// Leaving the editor destroys each texture once (issue 33): the renderer's dispose destroys the
// regl context (every texture in it); an image still opening ahead, or kept for a swap back, that
// settles afterwards must not destroy its texture again (regl throws 'must not double destroy
// texture', which the editor logged twice on every exit).
import type { Regl } from 'regl';
import { describe, expect, it } from 'vitest';
import { ImageSwap } from './image-swap';
import { ImageLayer } from './tiles';

/** A GL context stand-in that, like regl, throws when a texture is destroyed twice. */
function fakeGl() {
  interface FakeTexture { destroyed: number; destroy(): void }
  const live = new Set<FakeTexture>();
  const all: FakeTexture[] = [];
  const regl = {
    texture: () => {
      const t: FakeTexture = {
        destroyed: 0,
        destroy() {
          if (this.destroyed) throw new Error('(regl) must not double destroy texture');
          this.destroyed++;
          live.delete(t);
        },
      };
      live.add(t);
      all.push(t);
      return t;
    },
  } as unknown as Regl;
  /** regl.destroy(): every texture still alive goes with the context. */
  const destroyContext = () => [...live].forEach((t) => t.destroy());
  return { regl, all, destroyContext };
}

const bitmap = (w: number, h: number) => ({ kind: 'bitmap' as const, bitmap: { width: w, height: h, close() {} } as unknown as ImageBitmap });

describe('image swap on dispose', () => {
  it('an image opened ahead that settles after the context is gone does not destroy its texture again', async () => {
    const gl = fakeGl();
    let disposed = false;
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on('unhandledRejection', onError);
    const swap = new ImageSwap({
      newLayer: (source) => new ImageLayer(gl.regl, source, 4096, 512, 160, () => undefined),
      camera: () => ({ x: 0, y: 0, scale: 1 }),
      size: () => ({ width: 800, height: 600, dpr: 1 }),
      disposed: () => disposed,
      requestFrame: () => undefined,
    });
    await swap.swap(bitmap(800, 600), 'a');
    swap.preload('b', bitmap(640, 480), { x: 0, y: 0, scale: 1 });
    swap.preload('c', bitmap(320, 240), { x: 0, y: 0, scale: 1 });
    await new Promise((r) => setTimeout(r, 0));
    // Renderer.dispose(): disposed first, then the swap, then regl.destroy().
    disposed = true;
    swap.dispose();
    gl.destroyContext();
    await new Promise((r) => setTimeout(r, 10));
    process.off('unhandledRejection', onError);
    expect(errors).toEqual([]);
    expect(gl.all.length).toBe(3);
    expect(gl.all.map((t) => t.destroyed)).toEqual([1, 1, 1]);
  });
});
