import { describe, expect, it } from 'vitest';
import type { EditorAnnotation } from '../../engine';
import { copyShapes, hasClipboard, takePaste } from './clipboard';

class MemoryStorage {
  private m = new Map<string, string>();
  getItem(k: string) {
    return this.m.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.m.set(k, v);
  }
  removeItem(k: string) {
    this.m.delete(k);
  }
}

const box = { id: 'a', type: 'box', class: 'car', x: 1, y: 2, width: 30, height: 40 } as unknown as EditorAnnotation;

describe('editor clipboard', () => {
  it('keeps a copy in storage and cascades the offset per image', () => {
    const s = new MemoryStorage() as unknown as Storage;
    expect(hasClipboard(s)).toBe(false);
    expect(takePaste('img-1', s)).toBeNull();
    expect(copyShapes([], 'img-1', s)).toBe(false);
    expect(copyShapes([box], 'img-1', s)).toBe(true);
    expect(hasClipboard(s)).toBe(true);
    expect(takePaste('img-1', s)).toEqual({ shapes: [box], offset: 20 });
    expect(takePaste('img-1', s)?.offset).toBe(40);
    // Another image (the next one): its own cascade starts at 20.
    expect(takePaste('img-2', s)?.offset).toBe(20);
    // A new copy restarts every cascade.
    copyShapes([box], 'img-2', s);
    expect(takePaste('img-1', s)?.offset).toBe(20);
  });

  it('survives a corrupt entry', () => {
    const s = new MemoryStorage() as unknown as Storage;
    s.setItem('vellum.editorClipboard', '{not json');
    expect(takePaste('x', s)).toBeNull();
  });
});
