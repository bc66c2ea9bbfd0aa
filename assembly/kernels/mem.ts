// Unmanaged memory helpers. The kernels never create garbage-collected objects: every buffer
// comes from heap.alloc (TLSF) and is freed explicitly, so the module needs no GC and the JS
// side can hand buffers in and out by pointer.

export const ERR_SUM: i32 = -1; // counts do not sum to height * width
export const ERR_CHAR: i32 = -2; // RLE string has a character outside '0'..'o' (48..111)
export const ERR_TRUNCATED: i32 = -3; // RLE string ends inside a value
export const ERR_RANGE: i32 = -4; // a decoded count is negative or does not fit in u32
export const ERR_INPUT: i32 = -5; // malformed structure (ring/vertex counts)

/** Growable i32 vector. Its header (data pointer, length, capacity) lives in a 12-byte heap block. */
export function vecNew(cap: i32): usize {
  if (cap < 4) cap = 4;
  const h = heap.alloc(12);
  store<usize>(h, heap.alloc(<usize>cap << 2));
  store<i32>(h, 0, 4);
  store<i32>(h, cap, 8);
  return h;
}

export function vecData(h: usize): usize {
  return load<usize>(h);
}

export function vecLen(h: usize): i32 {
  return load<i32>(h, 4);
}

export function vecSetLen(h: usize, len: i32): void {
  store<i32>(h, len, 4);
}

export function vecPush(h: usize, v: i32): void {
  const len = load<i32>(h, 4);
  let cap = load<i32>(h, 8);
  if (len == cap) {
    cap <<= 1;
    store<usize>(h, heap.realloc(load<usize>(h), <usize>cap << 2));
    store<i32>(h, cap, 8);
  }
  store<i32>(load<usize>(h) + (<usize>len << 2), v);
  store<i32>(h, len + 1, 4);
}

export function vecPush2(h: usize, a: i32, b: i32): void {
  vecPush(h, a);
  vecPush(h, b);
}

export function vecGet(h: usize, i: i32): i32 {
  return load<i32>(load<usize>(h) + (<usize>i << 2));
}

export function vecFree(h: usize): void {
  heap.free(load<usize>(h));
  heap.free(h);
}

// The variable-length result of the last kernel call (counts or polygon records, as i32/u32).
// JS copies it out right after the call and then calls releaseResult().
let result: usize = 0;

export function newResult(cap: i32): usize {
  releaseResult();
  result = vecNew(cap);
  return result;
}

export function resultPtr(): usize {
  return result == 0 ? 0 : vecData(result);
}

export function resultLen(): i32 {
  return result == 0 ? 0 : vecLen(result);
}

export function releaseResult(): void {
  if (result != 0) {
    vecFree(result);
    result = 0;
  }
}

/** Zeroed i32 array (n elements). */
export function allocI32(n: i32, fill: i32): usize {
  const p = heap.alloc(<usize>max(n, 1) << 2);
  if (fill == 0) memory.fill(p, 0, <usize>n << 2);
  else for (let i = 0; i < n; i++) store<i32>(p + (<usize>i << 2), fill);
  return p;
}

/**
 * First index in [j, end) whose pixel state differs from `cur` (0: looking for a nonzero byte,
 * 1: looking for a zero byte), or `end`. 16 bytes per step with SIMD, since long runs are the
 * common case in masks.
 */
export function nextDiff(ptr: usize, j: usize, end: usize, cur: i32): usize {
  const zero = i8x16.splat(0);
  while (j + 16 <= end) {
    const zeros = i8x16.bitmask(i8x16.eq(v128.load(ptr + j), zero)); // bit set where byte == 0
    const diff = cur != 0 ? zeros : zeros ^ 0xffff;
    if (diff != 0) return j + <usize>ctz(diff);
    j += 16;
  }
  while (j < end) {
    if (<i32>(load<u8>(ptr + j) != 0) != cur) return j;
    j++;
  }
  return end;
}
