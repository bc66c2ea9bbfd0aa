// Auto-Annotate undoes one step at a time (issue 33, part 2): Ctrl+Z (Editor.undo) takes off the
// prompt's last click or box, Ctrl+Shift+Z (Editor.redo) puts it back, Backspace takes off the last
// click; the document's own history is untouched while the prompt has steps.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MASK_DEBOUNCE_MS, type AutoPreview, type MaskProposal, type SegmentPrompt, type Segmenter } from '../../src/engine';
import { TestEditor } from './helpers';

/** Answers every prompt with a square whose side counts its points (so each prompt's mask is told apart). */
function countingSegmenter() {
  const prompts: { prompt: SegmentPrompt; usePrevious: boolean }[] = [];
  const segmenter: Segmenter = {
    mask: async (prompt, usePrevious) => {
      prompts.push({ prompt, usePrevious });
      const side = 10 * (1 + prompt.positive.length + prompt.negative.length) + (prompt.box ? 5 : 0);
      const m: MaskProposal = { polygons: [{ path: [[0, 0], [side, 0], [side, side], [0, side]], holes: [] }], area: side * side, score: 1, data: null };
      return m;
    },
  };
  return { segmenter, prompts };
}

function setup() {
  const t = new TestEditor();
  const seg = countingSegmenter();
  t.editor.auto.setSegmenter(seg.segmenter);
  t.editor.setActiveClass('dog');
  // One shape drawn before: the document has an undo entry Ctrl+Z must not reach while prompting.
  t.editor.setTool('box');
  t.drag([10, 10], [200, 200]);
  t.editor.setTool('auto');
  const preview = () => t.editor.getView().drawing as AutoPreview | null;
  return { t, ...seg, preview };
}

const settle = () => vi.advanceTimersByTimeAsync(MASK_DEBOUNCE_MS + 1);
const summary = (p: AutoPreview | null) => p && { points: p.points.map((q) => [q.x, q.y, q.positive]), box: p.box, area: p.mask?.area ?? null };

describe('Auto-Annotate step-wise undo', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('box, two clicks: Ctrl+Z removes one click only and shows the mask the prompt had; redo puts it back', async () => {
    const { t, prompts, preview } = setup();
    t.drag([300, 300], [700, 600]);
    await settle();
    t.click(400, 400);
    await settle();
    t.click(650, 550, { shiftKey: true });
    await settle();
    expect(summary(preview())).toEqual({ points: [[400, 400, true], [650, 550, false]], box: { x: 300, y: 300, width: 400, height: 300 }, area: 35 * 35 });
    const asked = prompts.length;

    expect(t.editor.canUndo()).toBe(true);
    expect(t.editor.undo()).toBe(true);
    expect(summary(preview())).toEqual({ points: [[400, 400, true]], box: { x: 300, y: 300, width: 400, height: 300 }, area: 25 * 25 });
    await settle();
    expect(prompts).toHaveLength(asked); // the mask of that prompt was kept: nothing asked again
    expect(t.annotations).toHaveLength(1); // the box drawn before is still there

    expect(t.editor.redo()).toBe(true);
    expect(summary(preview())).toEqual({ points: [[400, 400, true], [650, 550, false]], box: { x: 300, y: 300, width: 400, height: 300 }, area: 35 * 35 });

    // All three steps off: the prompt is empty, the document untouched; one more Ctrl+Z undoes the box drawn before.
    t.editor.undo();
    t.editor.undo();
    t.editor.undo();
    expect(preview()).toBeNull();
    expect(t.annotations).toHaveLength(1);
    expect(t.editor.redo()).toBe(true);
    expect(summary(preview())).toMatchObject({ box: { x: 300, y: 300 }, points: [] });
    t.editor.undo();
    expect(t.editor.undo()).toBe(true);
    expect(t.annotations).toHaveLength(0);
  });

  it('a new click after an undo drops what could be put back, and asks afresh (not from the backend\'s previous mask)', async () => {
    const { t, prompts, preview } = setup();
    t.click(400, 400);
    await settle();
    t.click(450, 450);
    await settle();
    t.editor.undo();
    t.click(500, 500, { shiftKey: true });
    await settle();
    expect(prompts.at(-1)).toEqual({ prompt: { positive: [[400, 400]], negative: [[500, 500]] }, usePrevious: false });
    expect(t.editor.redo()).toBe(false); // nothing to put back: redo reaches the document, which has none
    expect(summary(preview())!.points).toEqual([[400, 400, true], [500, 500, false]]);
  });

  it('Backspace removes the last click (the box stays); Ctrl+Shift+Z puts it back', async () => {
    const { t, prompts, preview } = setup();
    t.click(400, 400);
    await settle();
    t.drag([300, 300], [700, 600]);
    await settle();
    expect(t.key('Backspace')).toBe(true);
    expect(summary(preview())).toMatchObject({ points: [], box: { x: 300, y: 300, width: 400, height: 300 } });
    await settle();
    expect(prompts.at(-1)!.prompt).toEqual({ positive: [], negative: [], box: [300, 300, 400, 300] });
    expect(t.annotations).toHaveLength(1); // Backspace deleted no shape
    expect(t.key('Backspace')).toBe(false); // no click left
    expect(t.editor.redo()).toBe(true);
    expect(summary(preview())!.points).toEqual([[400, 400, true]]);
  });

  it('Escape and Enter end the prompt: Ctrl+Z then undoes the document', async () => {
    const { t, preview } = setup();
    t.click(400, 400);
    await settle();
    t.key('Enter'); // accepted: the app turns it into a shape (not in this headless test)
    expect(preview()).toBeNull();
    expect(t.editor.redo()).toBe(false);
    expect(t.editor.undo()).toBe(true);
    expect(t.annotations).toHaveLength(0);
  });
});
