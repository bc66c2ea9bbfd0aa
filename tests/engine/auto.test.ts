// The Auto-Annotate tool, headless: a fake segmenter records prompts and answers when told to.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MASK_DEBOUNCE_MS, type AbortSignalLike, type AutoPreview, type MaskProposal, type ProposalAccepted, type SegmentPrompt, type Segmenter } from '../../src/engine';
import { TestEditor } from './helpers';

function square(x: number, y: number, s: number): MaskProposal {
  return { polygons: [{ path: [[x, y], [x + s, y], [x + s, y + s], [x, y + s]], holes: [] }], area: s * s, score: 0.9, data: { id: `${x},${y},${s}` } };
}

interface Call {
  prompt: SegmentPrompt;
  usePrevious: boolean;
  signal: AbortSignalLike;
  resolve(m: MaskProposal): void;
  reject(e: unknown): void;
}

/** A segmenter whose answers the test gives (answer()), or a square around the first positive point (auto). */
function fakeSegmenter(auto = true) {
  const calls: Call[] = [];
  const segmenter: Segmenter = {
    mask: (prompt, usePrevious, signal) =>
      new Promise<MaskProposal>((resolve, reject) => {
        calls.push({ prompt, usePrevious, signal, resolve, reject });
        signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
        if (auto) {
          const [x, y] = prompt.positive[0] ?? [prompt.box![0], prompt.box![1]];
          resolve(square(x - 10, y - 10, 40));
        }
      }),
  };
  return { segmenter, calls };
}

function autoEditor(auto = true, cls: string | null = 'cat') {
  const t = new TestEditor();
  const seg = fakeSegmenter(auto);
  t.editor.auto.setSegmenter(seg.segmenter);
  t.editor.setTool('auto');
  t.editor.setActiveClass(cls);
  const accepted: ProposalAccepted[] = [];
  t.editor.auto.onAccepted((e) => accepted.push(e));
  return { t, ...seg, accepted, preview: () => t.editor.getView().drawing as AutoPreview | null };
}

/** Lets the debounce run and the fake's promise settle. */
const settle = () => vi.advanceTimersByTimeAsync(MASK_DEBOUNCE_MS + 1);

describe('auto tool', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is an engine tool: a click is a positive point, asked for after the 100 ms debounce', async () => {
    const { t, calls, preview } = autoEditor();
    expect(t.editor.getView().tool).toBe('auto');
    t.click(100, 100);
    expect(preview()).toMatchObject({ kind: 'auto', points: [{ x: 100, y: 100, positive: true }], waiting: true, mask: null });
    await vi.advanceTimersByTimeAsync(MASK_DEBOUNCE_MS - 10);
    expect(calls).toHaveLength(0);
    await settle();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.prompt).toEqual({ positive: [[100, 100]], negative: [] });
    expect(calls[0]!.usePrevious).toBe(false);
    expect(preview()).toMatchObject({ waiting: false, mask: { area: 1600 } });
    expect(t.annotations).toHaveLength(0);
  });

  it('shift-click is a negative point; a plain click inside the mask stays positive (as in CVAT)', async () => {
    const { t, calls, preview } = autoEditor();
    t.click(100, 100);
    await settle();
    t.click(110, 110); // inside the 90..130 square
    t.click(500, 500, { shiftKey: true });
    await settle();
    expect(preview()!.points.map((p) => p.positive)).toEqual([true, true, false]);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.prompt).toEqual({ positive: [[100, 100], [110, 110]], negative: [[500, 500]] });
    expect(calls[1]!.usePrevious).toBe(true);
  });

  it('a right-click is a negative point, inside the mask or out, and never starts a box', async () => {
    const { t, calls, preview } = autoEditor();
    t.click(100, 100);
    await settle();
    t.down(110, 110, {}, 2).move(300, 300).up(300, 300, {}, 2);
    await settle();
    expect(preview()).toMatchObject({ box: null, points: [{ positive: true }, { x: 110, y: 110, positive: false }] });
    expect(calls[1]!.prompt).toEqual({ positive: [[100, 100]], negative: [[110, 110]] });
  });

  it('only negative points ask for nothing', async () => {
    const { t, calls, preview } = autoEditor();
    t.click(100, 100, { shiftKey: true });
    await settle();
    expect(calls).toHaveLength(0);
    expect(preview()).toMatchObject({ points: [{ positive: false }], mask: null, waiting: false });
  });

  it('ignores presses outside the image', async () => {
    const { t, preview } = autoEditor();
    t.click(-20, 50);
    await settle();
    expect(preview()).toBeNull();
  });

  it('press and drag past 10 screen px draws a box prompt; points refine it', async () => {
    const { t, calls, preview } = autoEditor();
    t.down(100, 100).move(300, 250);
    expect(preview()).toMatchObject({ box: { x: 100, y: 100, width: 200, height: 150 }, dragging: true });
    expect(calls).toHaveLength(0);
    t.up(300, 250);
    expect(preview()).toMatchObject({ box: { x: 100, y: 100, width: 200, height: 150 }, dragging: false, points: [] });
    await settle();
    expect(calls[0]!.prompt).toEqual({ positive: [], negative: [], box: [100, 100, 200, 150] });
    t.click(150, 200, { shiftKey: true });
    await settle();
    expect(calls[1]!.prompt).toEqual({ positive: [], negative: [[150, 200]], box: [100, 100, 200, 150] });
  });

  it('Enter accepts the mask: the app gets it, the prompt starts over', async () => {
    const { t, accepted, preview } = autoEditor();
    t.click(100, 100).click(400, 400);
    await settle();
    expect(t.editor.auto.canAccept()).toBe(true);
    expect(t.key('Enter')).toBe(true);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({ class: 'cat', pointCount: 2, box: null, proposal: { area: 1600, data: { id: '90,90,40' } } });
    expect(preview()).toBeNull();
    expect(t.editor.auto.canAccept()).toBe(false);
  });

  it('Enter without a class asks for one and keeps the mask', async () => {
    const { t, accepted, preview } = autoEditor(true, null);
    t.click(100, 100);
    await settle();
    expect(t.key('Enter')).toBe(true);
    expect(accepted).toHaveLength(0);
    expect(t.events).toContainEqual({ type: 'needs-class', tool: 'auto' });
    expect(preview()!.mask).not.toBeNull();
    t.editor.setActiveClass('dog');
    expect(t.editor.auto.accept()).toBe(true);
    expect(accepted[0]!.class).toBe('dog');
  });

  it('Enter while a request runs accepts nothing', async () => {
    const { t, accepted } = autoEditor(false);
    t.click(100, 100);
    await settle();
    expect(t.key('Enter')).toBe(true);
    expect(accepted).toHaveLength(0);
  });

  it('Escape cancels the prompt and aborts the request in flight', async () => {
    const { t, calls, preview } = autoEditor(false);
    t.click(100, 100);
    await settle();
    expect(t.editor.getView().drawing).toMatchObject({ waiting: true });
    expect(t.key('Escape')).toBe(true);
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(preview()).toBeNull();
    calls[0]!.resolve(square(0, 0, 10));
    await settle();
    expect(preview()).toBeNull();
    // Idle: Escape is not the tool's (the editor clears the selection).
    expect(t.key('Escape')).toBe(false);
  });

  it('a newer prompt cancels the older request, whose late answer is ignored', async () => {
    const { t, calls, preview } = autoEditor(false);
    t.click(100, 100);
    await settle();
    t.click(600, 600);
    expect(calls[0]!.signal.aborted).toBe(true);
    await settle();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.signal.aborted).toBe(false);
    calls[1]!.resolve(square(590, 590, 30));
    await vi.advanceTimersByTimeAsync(0);
    calls[0]!.resolve(square(0, 0, 500)); // abandoned prompt: ignored
    await vi.advanceTimersByTimeAsync(0);
    expect(preview()).toMatchObject({ waiting: false, mask: { area: 900 } });
  });

  it('clicks within the debounce make one request', async () => {
    const { t, calls } = autoEditor();
    t.click(100, 100);
    await vi.advanceTimersByTimeAsync(50);
    t.click(300, 300, { shiftKey: true });
    await settle();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.prompt).toEqual({ positive: [[100, 100]], negative: [[300, 300]] });
  });

  it('a failed request keeps the points and says so; the next click retries', async () => {
    const { t, calls, preview } = autoEditor(false);
    t.click(100, 100);
    await settle();
    calls[0]!.reject(new Error('500'));
    await vi.advanceTimersByTimeAsync(0);
    expect(preview()).toMatchObject({ failed: true, waiting: false, points: [{ x: 100, y: 100 }] });
    t.click(200, 200);
    expect(preview()!.failed).toBe(false);
    await settle();
    expect(calls).toHaveLength(2);
  });

  it('switching tool cancels the prompt and the request in flight', async () => {
    const { t, calls, accepted } = autoEditor(false);
    t.click(100, 100);
    await settle();
    t.editor.setTool('select');
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(t.editor.getView().drawing).toBeNull();
    calls[0]!.resolve(square(0, 0, 10));
    await settle();
    expect(t.editor.getView().drawing).toBeNull();
    t.editor.setTool('auto');
    expect(t.key('Enter')).toBe(false);
    expect(accepted).toHaveLength(0);
  });

  it('loading another document drops the prompt; Clear drops it too', async () => {
    const { t, preview } = autoEditor();
    t.click(100, 100);
    await settle();
    t.editor.load([]);
    expect(preview()).toBeNull();
    t.click(100, 100);
    await settle();
    t.editor.auto.clear();
    expect(preview()).toBeNull();
  });

  it('without a segmenter clicks are kept but nothing is asked', async () => {
    const { t, preview } = autoEditor();
    t.editor.auto.setSegmenter(null);
    t.click(100, 100);
    await settle();
    expect(preview()).toMatchObject({ points: [{ positive: true }], mask: null, waiting: false });
  });

  it('is not offered read-only', () => {
    const t = new TestEditor();
    t.editor.setReadOnly(true);
    t.editor.setTool('auto');
    expect(t.editor.getView().tool).toBe('select');
  });
});
