import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { GetMaskResponse } from '../../contract/segmentation';
import { Editor, MASK_DEBOUNCE_MS, type AutoPreview } from '../../engine';
import { AutoAnnotateSession, statusText, toProposal, type SegmentationApi } from './autoAnnotate';

function square(x: number, y: number, s: number, area = s * s): GetMaskResponse {
  const path: [number, number][] = [[x, y], [x + s, y], [x + s, y + s], [x, y + s]];
  return {
    status: 'success',
    vellum_annotation: { polygon: { path, holes: [] }, metadata: { sam2_area: area } },
    vellum_annotations: [{ polygon: { path, holes: [] }, metadata: { sam2_area: area } }],
    polygon: path,
    bbox: [x, y, s, s],
    area,
    score: 0.9,
    inference_time: 0.01,
    point_coords: [],
    point_labels: [],
    mask: { size: [100, 100], counts: '' },
    backend: 'builtin',
  };
}

function fakeApi(overrides: Partial<SegmentationApi> = {}) {
  const calls: { name: string; prompt: Parameters<SegmentationApi['mask']>[1]; usePrevious: boolean; signal: AbortSignal }[] = [];
  const api: SegmentationApi = {
    warmup: vi.fn(async () => ({})),
    health: vi.fn(async () => ({ status: 'healthy' as const })),
    process: vi.fn(async () => ({})),
    mask: vi.fn(async (name, prompt, usePrevious, signal) => {
      calls.push({ name, prompt, usePrevious, signal });
      return square(10, 10, 20);
    }),
    ...overrides,
  };
  return { api, calls };
}

/** The session as the editor screen wires it: the engine's Auto-Annotate tool asks it for masks. */
function wired(api: SegmentationApi) {
  const s = new AutoAnnotateSession(api, undefined, () => undefined);
  const editor = new Editor({ viewport: { width: 100, height: 100 }, image: { width: 100, height: 100 } });
  editor.auto.setSegmenter(s.segmenter());
  editor.setTool('auto');
  editor.setActiveClass('cat');
  const click = (x: number, y: number, shiftKey = false) => {
    const [sx, sy] = editor.imageToScreen(x, y);
    editor.pointerDown({ x: sx, y: sy, button: 0, shiftKey });
    editor.pointerUp({ x: sx, y: sy, button: 0, shiftKey });
  };
  const prompt = () => {
    const d = editor.getView().drawing as AutoPreview | null;
    return d ? { points: d.points.length, area: d.mask?.area ?? null, waiting: d.waiting, failed: d.failed } : null;
  };
  return { s, editor, click, prompt, label: () => statusText(s.getState(), prompt(), 10_000) };
}

describe('Auto-Annotate session', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('prepares the next image in the background once Auto-Annotate is used, so opening it is ready at once', async () => {
    const { api } = fakeApi();
    const { s } = wired(api);
    // Not used yet: nothing is embedded ahead.
    s.setImage('a.png');
    s.setNext('b.png');
    await vi.advanceTimersByTimeAsync(500);
    expect(api.process).not.toHaveBeenCalled();
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(500);
    expect(vi.mocked(api.process).mock.calls.map((c) => c[0])).toEqual(['a.png', 'b.png']);
    // The annotator moves on: the next image is ready without another embedding, and its own next is prepared.
    s.setNext('c.png');
    s.setImage('b.png');
    await vi.advanceTimersByTimeAsync(150);
    expect(s.getState().embedding).toBe('ready');
    await vi.advanceTimersByTimeAsync(500);
    expect(vi.mocked(api.process).mock.calls.map((c) => c[0])).toEqual(['a.png', 'b.png', 'c.png']);
  });

  it('a failed preparation is only logged; the image is embedded when it is opened', async () => {
    const process = vi.fn(async (name: string) => {
      if (name === 'b.png' && process.mock.calls.filter((c) => c[0] === 'b.png').length === 1) throw new Error('busy');
      return {};
    });
    const { api } = fakeApi({ process });
    const { s } = wired(api);
    s.setNext('b.png');
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(500);
    expect(s.getState().error).toBeNull();
    s.setNext(null);
    s.setImage('b.png');
    await vi.advanceTimersByTimeAsync(500);
    expect(s.getState().embedding).toBe('ready');
    expect(process.mock.calls.map((c) => c[0])).toEqual(['a.png', 'b.png', 'b.png']);
  });

  it('walks Starting Up, Embedding Image, Ready for Input, then points and area; clicks before ready wait', async () => {
    let healthy = false;
    const { api, calls } = fakeApi({ health: vi.fn(async () => ({ status: healthy ? ('healthy' as const) : ('starting' as const) })) });
    const { s, click, label } = wired(api);
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(0);
    expect(label().label).toBe('Starting Up...');
    // A click before ready is shown as pending; its request waits for the image.
    click(15, 15);
    expect(label().label).toBe('1 point (pending)');
    await vi.advanceTimersByTimeAsync(MASK_DEBOUNCE_MS + 10);
    expect(calls).toHaveLength(0);
    healthy = true;
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(200);
    expect(s.getState().embedding).toBe('ready');
    expect(api.process).toHaveBeenCalledWith('a.png');
    // Sent once ready.
    expect(calls).toHaveLength(1);
    expect(calls[0]!.prompt).toEqual({ positive: [[15, 15]], negative: [] });
    expect(label()).toEqual({ label: '1 point', area: '4.0%' });
  });

  it('says Ready for Input with no prompt, and Embedding Image while processing', async () => {
    let finish!: () => void;
    const { api } = fakeApi({ process: vi.fn(() => new Promise<unknown>((r) => (finish = () => r({})))) });
    const { s, label } = wired(api);
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(200);
    expect(label().label).toBe('Embedding Image...');
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(label()).toEqual({ label: 'Ready for Input', area: null });
  });

  it('asks get-mask with the points (Shift-click negative) and reuses the previous mask', async () => {
    const { api, calls } = fakeApi();
    const { s, click, label } = wired(api);
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(300);
    click(15, 15);
    await vi.advanceTimersByTimeAsync(150);
    click(50, 50, true);
    await vi.advanceTimersByTimeAsync(150);
    expect(calls.at(-1)).toMatchObject({ name: 'a.png', prompt: { positive: [[15, 15]], negative: [[50, 50]] }, usePrevious: true });
    expect(label().label).toBe('2 points');
  });

  it('an aborted request waiting for the image asks nothing', async () => {
    const { api, calls } = fakeApi({ health: vi.fn(async () => ({ status: 'starting' as const })) });
    const { s, editor, click } = wired(api);
    s.activate('a.png');
    click(15, 15);
    await vi.advanceTimersByTimeAsync(150);
    editor.auto.clear();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(0);
  });

  it('a failed start rejects the request: the bar says so', async () => {
    const { api } = fakeApi({ health: vi.fn(async () => ({ status: 'starting' as const })) });
    const { s, click, prompt, label } = wired(api);
    s.activate('a.png');
    click(15, 15);
    await vi.advanceTimersByTimeAsync(40_000);
    expect(s.getState().container).toBe('failed');
    expect(prompt()).toMatchObject({ failed: true, waiting: false });
    expect(label().label).toBe('1 point (pending)');
  });

  it('retries processing 3 times with doubling delays, then goes on as ready', async () => {
    const { api } = fakeApi({ process: vi.fn(async () => { throw new Error('503'); }) });
    const s = new AutoAnnotateSession(api, undefined, () => undefined);
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(200);
    expect(s.getState().embedding).toBe('processing');
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000);
    expect(api.process).toHaveBeenCalledTimes(4);
    expect(s.getState().embedding).toBe('ready');
  });

  it('a new image embeds again', async () => {
    const { api } = fakeApi();
    const s = new AutoAnnotateSession(api, undefined, () => undefined);
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(300);
    s.setImage('b.png');
    expect(s.getState().embedding).toBe('idle');
    await vi.advanceTimersByTimeAsync(300);
    expect(api.process).toHaveBeenLastCalledWith('b.png');
    expect(s.getState().embedding).toBe('ready');
  });

  it('asks for polygons snapped at the chosen tolerance once Polygon is chosen, and remembers the choice on this device', async () => {
    const stored = new Map<string, string>();
    const localStorage = { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => void stored.set(k, v), removeItem: (k: string) => void stored.delete(k) };
    vi.stubGlobal('window', { localStorage });
    onTestFinished(() => void vi.unstubAllGlobals());
    const { api } = fakeApi();
    const { s, click } = wired(api);
    expect(s.getState().output).toEqual({ kind: 'mask' });
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(500);
    click(15, 15);
    await vi.advanceTimersByTimeAsync(MASK_DEBOUNCE_MS + 10);
    expect(vi.mocked(api.mask).mock.calls.at(-1)![4]).toBeUndefined();
    s.setOutput({ kind: 'polygon', tolerance: 2 });
    click(50, 50);
    await vi.advanceTimersByTimeAsync(MASK_DEBOUNCE_MS + 10);
    expect(vi.mocked(api.mask).mock.calls.at(-1)![4]).toBe(2);
    // A new screen starts from the stored choice; a stored value it does not offer falls back to the mask.
    expect(new AutoAnnotateSession(api).getState().output).toEqual({ kind: 'polygon', tolerance: 2 });
    localStorage.setItem('vellum.autoAnnotate.output', JSON.stringify({ kind: 'polygon', tolerance: 7 }));
    expect(new AutoAnnotateSession(api).getState().output).toEqual({ kind: 'mask' });
  });

  it('a box prompt alone counts 0 points, with its mask area', () => {
    const ready = { container: 'ready' as const, embedding: 'ready' as const, error: null };
    expect(statusText(ready, { points: 0, area: 2500, waiting: false, failed: false }, 10_000)).toEqual({ label: '0 points', area: '25.0%' });
    expect(statusText(ready, { points: 0, area: null, waiting: true, failed: false }, 10_000)).toEqual({ label: '0 points', area: 'Unknown' });
    expect(statusText({ ...ready, embedding: 'processing' }, { points: 0, area: null, waiting: true, failed: false }, 10_000).label).toBe('Embedding Image...');
  });

  it('turns get-mask answers into proposals with holes, the answer kept for saving', () => {
    const m = square(0, 0, 100);
    m.vellum_annotations[0]!.polygon.holes = [[[40, 40], [60, 40], [60, 60], [40, 60]]];
    const p = toProposal(m);
    expect(p.polygons).toEqual([{ path: m.vellum_annotations[0]!.polygon.path, holes: [[[40, 40], [60, 40], [60, 60], [40, 60]]] }]);
    expect(p).toMatchObject({ area: 10_000, score: 0.9 });
    expect(p.data).toBe(m);
  });
});
