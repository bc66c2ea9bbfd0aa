// 4-connected flood fill by spans: a row's run of matching pixels is marked with one fill() and
// only the rows above and below it are searched for more, so the cost follows the runs rather than
// the pixels (hole filling and the connectivity pass flood most of the mask's box on every click).

let scratch = new Int32Array(0);

/**
 * Sets to `to` every pixel of value `from` 4-connected to one of `seeds` (pixel indices whose value
 * is `from`; others are skipped) inside the inclusive window x0..x1, y0..y1 of the row-major `mask`
 * (width w). `to` must differ from `from`.
 */
export function floodSpans(mask: Uint8Array, w: number, x0: number, x1: number, y0: number, y1: number, from: number, to: number, seeds: ArrayLike<number>): void {
  // Each stack entry is a pixel to start a span from.
  let stack = scratch;
  let top = 0;
  const push = (p: number) => {
    if (top === stack.length) {
      const grown = new Int32Array(Math.max(1 << 16, stack.length * 2));
      grown.set(stack);
      stack = scratch = grown;
    }
    stack[top++] = p;
  };
  for (let i = 0; i < seeds.length; i++) push(seeds[i]!);
  while (top > 0) {
    const p = stack[--top]!;
    if (mask[p] !== from) continue;
    const y = (p / w) | 0, row = y * w;
    let a = p, b = p;
    while (a > row + x0 && mask[a - 1] === from) a--;
    while (b < row + x1 && mask[b + 1] === from) b++;
    mask.fill(to, a, b + 1);
    // One seed per run of `from` pixels in the neighbouring rows under [a, b].
    for (const r of [y > y0 ? -w : 0, y < y1 ? w : 0]) {
      if (r === 0) continue;
      let inRun = false;
      for (let q = a + r; q <= b + r; q++) {
        if (mask[q] === from) {
          if (!inRun) push(q);
          inRun = true;
        } else inRun = false;
      }
    }
  }
}
