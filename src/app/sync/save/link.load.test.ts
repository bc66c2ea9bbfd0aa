// Opening an image through the link: the document loads in slices without counting as the user's
// change, and a merge that lands while it loads (the manager saving work it recovered) reaches
// the editor when the link attaches, not before and not lost.
import { describe, expect, it, vi } from 'vitest';
import { Editor } from '../../../engine';
import { EditorSaveLink } from './link';
import type { MergeResult, SaveManager } from './types';

const IMG = '00000000-0000-4000-8000-000000000001';
const ref = { imageId: IMG, projectId: '00000000-0000-4000-8000-0000000000aa', imageFilename: 'lot.png' };
const stored = (id: string, x: number) => ({ id, name: 'car', bounding_box: { x, y: 0, w: 10, h: 10 } });

function setup() {
  let merged: ((imageId: string, merge: MergeResult) => void) | null = null;
  const saver = {
    onMerged: (l: (imageId: string, merge: MergeResult) => void) => {
      merged = l;
      return () => undefined;
    },
    onAbsorbed: () => () => undefined,
    change: vi.fn(),
    close: vi.fn(),
  } as unknown as SaveManager;
  const editor = new Editor();
  const link = new EditorSaveLink(editor, saver, { setTimer: () => 0, clearTimer: () => undefined });
  link.start();
  const merge = (imageId: string, upserts: ReturnType<typeof stored>[], removed: string[]) =>
    merged!(imageId, { annotations: [], version: 2, conflicts: [], changes: { upserts, removed } } as unknown as MergeResult);
  return { saver, editor, link, merge };
}

describe('EditorSaveLink.load', () => {
  it('loads in slices without handing the document to the manager, even when attached', async () => {
    const { saver, editor, link } = setup();
    link.attach(ref);
    const many = Array.from({ length: 3000 }, (_, i) => stored(`b${i}`, i));
    const progress: number[] = [];
    expect(await link.load(many, { budgetMs: 0, onProgress: (done) => progress.push(done) })).toBe(true);
    expect(editor.annotationCount).toBe(3000);
    expect(progress.length).toBeGreaterThan(1);
    expect(saver.change).not.toHaveBeenCalled();
    // the user's own change after it still goes to the manager
    editor.execute('delete', { ids: ['b0'] });
    expect(saver.change).toHaveBeenCalledTimes(1);
  });

  it('keeps a merge that lands while the image opens and applies it when attached', async () => {
    const { saver, editor, link, merge } = setup();
    link.expect(IMG);
    const loading = link.load([stored('a', 0), stored('b', 20)], { budgetMs: 0 });
    merge(IMG, [stored('c', 40)], ['a']);
    merge('00000000-0000-4000-8000-000000000002', [stored('x', 0)], []); // another image: ignored
    expect(await loading).toBe(true);
    expect(editor.getOrderedIds()).toEqual(['a', 'b']);
    link.attach(ref);
    expect(editor.getOrderedIds()).toEqual(['b', 'c']);
    expect(saver.change).not.toHaveBeenCalled();
  });

  it('forgets what it kept when the screen leaves the image before attaching', async () => {
    const { editor, link, merge } = setup();
    link.expect(IMG);
    await link.load([stored('a', 0)]);
    merge(IMG, [stored('c', 40)], []);
    link.detach(IMG);
    link.attach(ref);
    expect(editor.getOrderedIds()).toEqual(['a']);
  });
});
