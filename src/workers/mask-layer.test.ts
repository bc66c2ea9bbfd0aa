// The mask layer's edits in place (a brush stroke per pointer move): only the changed columns
// are decoded and uploaded into the mask's old block; a mask that grows gets a new block.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Regl } from 'regl';
import { kernels } from '../../assembly/test/helpers';
import { decodeRle, encodeMask } from '../contract/rle';
import type { Kernels } from '../kernels';
import type { Shape } from './cells';
import { MaskLayer, changedColumns } from './mask-layer';

let k: Kernels;
beforeAll(async () => {
  k = await kernels();
});

/** regl's texture and buffer APIs, keeping each texture's texels so a test can read them back. */
function fakeRegl() {
  const textures: { w: number; h: number; texels: Uint8Array; destroyed: boolean }[] = [];
  const regl = {
    texture(opts: { width: number; height: number }) {
      const t = { w: opts.width, h: opts.height, texels: new Uint8Array(opts.width * opts.height), destroyed: false };
      textures.push(t);
      return Object.assign(() => undefined, {
        subimage(img: { width: number; height: number; data: Uint8Array }, x: number, y: number) {
          for (let r = 0; r < img.height; r++) t.texels.set(img.data.subarray(r * img.width, (r + 1) * img.width), (y + r) * t.w + x);
        },
        destroy() {
          t.destroyed = true;
        },
      });
    },
    buffer: () => Object.assign(() => undefined, { destroy() {} }),
  };
  return { regl: regl as unknown as Regl, textures };
}

const H = 300, W = 400;

function setup() {
  const { regl, textures } = fakeRegl();
  const shapes = new Map<string, Shape>();
  const layer = new MaskLayer(regl, 2048, 4096, undefined, shapes, () => {});
  layer.useKernels(k);
  const s = { id: 'm', z: 0, type: 4, color: 0, slot: 0, mask: null, bounds: [0, 0, 0, 0], chunk: null, label: '' } as unknown as Shape;
  shapes.set('m', s);
  const show = (counts: number[]) => {
    if (s.mask) layer.drop(s);
    layer.add(s, { index: 0, size: [H, W], counts });
    layer.decode();
    layer.draws();
  };
  /** The mask as drawn: its block's texels put back at image pixels. */
  const drawn = () => {
    const m = new Uint8Array(H * W);
    const { place, rect } = s.mask!;
    const t = textures.find((x) => !x.destroyed && x.w === place!.atlas.w && x.h === place!.atlas.h)!;
    for (let c = 0; c < rect[2]; c++) for (let r = 0; r < rect[3]; r++) m[(rect[0] + c) * H + rect[1] + r] = t.texels[(place!.v + c) * t.w + place!.u + r]!;
    return m;
  };
  return { layer, s, show, drawn };
}

describe('changedColumns', () => {
  it('finds the columns two masks differ in from their runs', () => {
    const a = new Uint8Array(H * W), b = new Uint8Array(H * W);
    for (let x = 50; x < 200; x++) for (let y = 40; y < 90; y++) a[x * H + y] = b[x * H + y] = 1;
    expect(changedColumns(encodeMask(a, H, W), encodeMask(b, H, W), H)).toBeNull();
    b[120 * H + 10] = 1;
    b[131 * H + 299] = 1;
    expect(changedColumns(encodeMask(a, H, W), encodeMask(b, H, W), H)).toEqual([120, 131]);
    b[399 * H + 299] = 1; // the last pixel: the lists end with runs of different kinds
    expect(changedColumns(encodeMask(a, H, W), encodeMask(b, H, W), H)).toEqual([120, 399]);
  });
});

describe('MaskLayer edits', () => {
  it('a stroke inside the mask uploads only the columns it changed, into the same block', () => {
    const { layer, s, show, drawn } = setup();
    let counts = Array.from(k.paintStroke({ size: [H, W], counts: [H * W] }, [[100, 100], [300, 200]], 40));
    show(counts);
    const place = s.mask!.place;
    const before = layer.uploadedTexels;
    counts = Array.from(k.paintStroke({ size: [H, W], counts }, [[200, 150], [205, 150]], 10, 'erase'));
    show(counts);
    expect(s.mask!.place).toBe(place);
    // columns 190..215 at most, each one rect height tall
    expect(layer.uploadedTexels - before).toBeLessThanOrEqual(26 * s.mask!.rect[3]);
    expect(Buffer.from(drawn()).equals(Buffer.from(decodeRle({ size: [H, W], counts })))).toBe(true);
  });

  it('a stroke past the mask\'s box gives it a larger block with room to grow, drawn right', () => {
    const { s, show, drawn } = setup();
    let counts = Array.from(k.paintStroke({ size: [H, W], counts: [H * W] }, [[100, 100]], 20));
    show(counts);
    const first = s.mask!.rect;
    counts = Array.from(k.paintStroke({ size: [H, W], counts }, [[100, 100], [160, 110]], 20));
    show(counts);
    const grown = s.mask!.rect;
    expect(grown[0] + grown[2]).toBeGreaterThan(first[0] + first[2] + 60);
    expect(Buffer.from(drawn()).equals(Buffer.from(decodeRle({ size: [H, W], counts })))).toBe(true);
    // the next step along stays in that block
    const place = s.mask!.place;
    counts = Array.from(k.paintStroke({ size: [H, W], counts }, [[160, 110], [170, 112]], 20));
    show(counts);
    expect(s.mask!.place).toBe(place);
    expect(Buffer.from(drawn()).equals(Buffer.from(decodeRle({ size: [H, W], counts })))).toBe(true);
  });
});
