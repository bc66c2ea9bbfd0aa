// The ArrayBuffers a result or argument holds (typed arrays a few levels into plain objects and
// arrays), to move them between threads instead of copying them. Only a view that spans its whole
// buffer is moved: a small Node Buffer shares its pool's ArrayBuffer with others, which must stay.

export function transferablesOf(value: unknown): ArrayBuffer[] {
  const found = new Set<ArrayBuffer>();
  const walk = (v: unknown, depth: number) => {
    if (!v || typeof v !== 'object' || depth > 4) return;
    if (ArrayBuffer.isView(v)) {
      if (v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) found.add(v.buffer);
      return;
    }
    if (v instanceof ArrayBuffer) {
      found.add(v);
      return;
    }
    for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x, depth + 1);
  };
  walk(value, 0);
  return [...found];
}
