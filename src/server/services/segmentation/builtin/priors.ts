// Shape and interaction priors of the built-in segmenter, over the superpixel graph (a few
// thousand nodes: plain TypeScript is fast enough, no kernel needed).
import { MAX_DEGREE, type SuperpixelStats } from '../../../../../assembly/reference/segment';

/**
 * Geodesic star convexity (Gulshan et al. 2010) on the superpixel graph: the shortest-path forest
 * from the positive seeds, each hop costing 1 + gamma * (normalised contrast across it). The cut
 * then adds an arc i -> parent(i) of infinite capacity, so a superpixel can only be foreground
 * when its whole path to a click is: the mask is connected to the clicks and grows along
 * paths of little contrast. Negative seeds block paths. Returns parent (-1: root or unreachable)
 * and the path cost (Infinity: unreachable).
 */
export function starParents(s: SuperpixelStats, contrast: Float64Array, seed: Uint8Array, gamma: number): { parent: Int32Array; dist: Float64Array } {
  const n = s.count;
  const dist = new Float64Array(n).fill(Infinity);
  const parent = new Int32Array(n).fill(-1);
  const heap = new MinHeap(n);
  for (let i = 0; i < n; i++) {
    if (seed[i] === 1) {
      dist[i] = 0;
      heap.push(i, 0);
    }
  }
  const done = new Uint8Array(n);
  while (heap.size) {
    const i = heap.pop();
    if (done[i]) continue;
    done[i] = 1;
    for (let k = 0; k < s.degree[i]!; k++) {
      const j = s.nbr[i * MAX_DEGREE + k]!;
      if (done[j] || seed[j] === 2) continue;
      const d = dist[i]! + 1 + gamma * contrast[i * MAX_DEGREE + k]!;
      if (d < dist[j]!) {
        dist[j] = d;
        parent[j] = i;
        heap.push(j, d);
      }
    }
  }
  return { parent, dist };
}

/** Binary min-heap of (node, key) with lazy deletion (a node may be pushed more than once). */
class MinHeap {
  private node: Int32Array;
  private key: Float64Array;
  size = 0;
  constructor(cap: number) {
    this.node = new Int32Array(Math.max(16, cap * 4));
    this.key = new Float64Array(this.node.length);
  }
  push(v: number, k: number): void {
    if (this.size === this.node.length) {
      const n2 = new Int32Array(this.size * 2), k2 = new Float64Array(this.size * 2);
      n2.set(this.node);
      k2.set(this.key);
      this.node = n2;
      this.key = k2;
    }
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.key[p]! <= k) break;
      this.node[i] = this.node[p]!;
      this.key[i] = this.key[p]!;
      i = p;
    }
    this.node[i] = v;
    this.key[i] = k;
  }
  pop(): number {
    const top = this.node[0]!;
    const v = this.node[--this.size]!, k = this.key[this.size]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= this.size) break;
      if (c + 1 < this.size && this.key[c + 1]! < this.key[c]!) c++;
      if (this.key[c]! >= k) break;
      this.node[i] = this.node[c]!;
      this.key[i] = this.key[c]!;
      i = c;
    }
    this.node[i] = v;
    this.key[i] = k;
    return top;
  }
}

/**
 * Keeps the foreground superpixels connected (through foreground) to a positive seed; with no
 * positive seed (a box alone), the largest foreground component and every one at least `minShare`
 * of its size (an object the background splits, like a pair of shoes).
 */
export function keepConnected(s: SuperpixelStats, fg: Uint8Array, seed: Uint8Array, minShare = 1): void {
  const n = s.count;
  const comp = new Int32Array(n).fill(-1);
  const keep: boolean[] = [];
  const queue: number[] = [];
  const sizes: number[] = [];
  let hasSeed = false, best = -1, bestSize = -1;
  for (let i = 0; i < n; i++) if (seed[i] === 1) hasSeed = true;
  for (let r = 0; r < n; r++) {
    if (!fg[r] || comp[r] !== -1) continue;
    const c = keep.length;
    let size = 0, seeded = false;
    comp[r] = c;
    queue.push(r);
    while (queue.length) {
      const i = queue.pop()!;
      size += s.size[i]!;
      if (seed[i] === 1) seeded = true;
      for (let k = 0; k < s.degree[i]!; k++) {
        const j = s.nbr[i * MAX_DEGREE + k]!;
        if (fg[j] && comp[j] === -1) {
          comp[j] = c;
          queue.push(j);
        }
      }
    }
    keep.push(seeded);
    sizes.push(size);
    if (size > bestSize) {
      best = c;
      bestSize = size;
    }
  }
  for (let i = 0; i < n; i++) fg[i] = comp[i]! >= 0 && (hasSeed ? keep[comp[i]!] : comp[i] === best || sizes[comp[i]!]! >= minShare * bestSize) ? 1 : 0;
}

/** Normalised contrast per neighbour slot (mean 1): colour difference of the means and across the shared boundary. */
export function slotContrast(s: SuperpixelStats): Float64Array {
  const out = new Float64Array(s.count * MAX_DEGREE);
  let sum = 0, m = 0;
  for (let i = 0; i < s.count; i++) {
    for (let k = 0; k < s.degree[i]!; k++) {
      const j = s.nbr[i * MAX_DEGREE + k]!;
      let d = 0;
      for (let c = 0; c < 3; c++) d += (s.mean[i * 5 + c]! - s.mean[j * 5 + c]!) ** 2;
      const g = s.edgeGrad[i * MAX_DEGREE + k]! / s.edgeLen[i * MAX_DEGREE + k]!;
      const v = Math.sqrt(0.5 * d + 0.5 * g * g);
      out[i * MAX_DEGREE + k] = v;
      sum += v;
      m++;
    }
  }
  const mean = m ? sum / m : 1;
  if (mean > 0) for (let i = 0; i < out.length; i++) out[i] = out[i]! / mean;
  return out;
}
