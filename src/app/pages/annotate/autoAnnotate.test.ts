import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GetMaskResponse } from '../../../contract/segmentation';
import { AutoAnnotateSession, insideMask, statusText, type SegmentationApi } from './autoAnnotate';

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
  const calls: { pos: [number, number][]; neg: [number, number][]; usePrevious: boolean; signal: AbortSignal }[] = [];
  const api: SegmentationApi = {
    warmup: vi.fn(async () => ({})),
    health: vi.fn(async () => ({ status: 'healthy' as const })),
    process: vi.fn(async () => ({})),
    mask: vi.fn(async (_n, pos, neg, usePrevious, signal) => {
      calls.push({ pos, neg, usePrevious, signal });
      return square(10, 10, 20);
    }),
    ...overrides,
  };
  return { api, calls };
}

describe('Auto-Annotate session', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('walks Starting Up, Embedding Image, Ready for Input, then points and area', async () => {
    let healthy = false;
    const { api } = fakeApi({ health: vi.fn(async () => ({ status: healthy ? ('healthy' as const) : ('starting' as const) })) });
    const s = new AutoAnnotateSession(api, undefined, () => undefined);
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(0);
    expect(statusText(s.getState(), 10_000).label).toBe('Starting Up...');
    // A click before ready is queued as pending.
    s.click(15, 15, false);
    expect(statusText(s.getState(), 10_000).label).toBe('1 point (pending)');
    healthy = true;
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(200);
    expect(s.getState().embedding).toBe('ready');
    expect(api.process).toHaveBeenCalledWith('a.png');
    // The pending point was sent once ready.
    expect(statusText(s.getState(), 10_000)).toEqual({ label: '1 point', area: '4.0%' });
    expect(s.canComplete()).toBe(true);
  });

  it('shift-click and a click inside the mask are negative; a newer click cancels the older request', async () => {
    const { api, calls } = fakeApi();
    const s = new AutoAnnotateSession(api, undefined, () => undefined);
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(300);
    s.click(15, 15, false);
    await vi.advanceTimersByTimeAsync(150);
    s.click(20, 20, false); // inside the 10..30 square
    s.click(50, 50, true);
    expect(s.getState().points.map((p) => p.positive)).toEqual([true, false, false]);
    await vi.advanceTimersByTimeAsync(150);
    const last = calls.at(-1)!;
    expect(last.pos).toEqual([[15, 15]]);
    expect(last.neg).toEqual([[20, 20], [50, 50]]);
    expect(last.usePrevious).toBe(true);
    expect(statusText(s.getState(), 10_000).label).toBe('3 points');
  });

  it('ignores a cancelled request and keeps the newest mask', async () => {
    let resolveFirst!: (m: GetMaskResponse) => void;
    let n = 0;
    const { api } = fakeApi({
      mask: vi.fn((_n, _p, _q, _u, signal: AbortSignal) => {
        n++;
        if (n === 1) return new Promise<GetMaskResponse>((res, rej) => { resolveFirst = res; signal.addEventListener('abort', () => rej(Object.assign(new Error('aborted'), { name: 'AbortError' }))); });
        return Promise.resolve(square(0, 0, 50));
      }),
    });
    const s = new AutoAnnotateSession(api, undefined, () => undefined);
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(300);
    s.click(5, 5, false);
    await vi.advanceTimersByTimeAsync(150);
    s.click(6, 6, false);
    await vi.advanceTimersByTimeAsync(150);
    resolveFirst(square(0, 0, 1));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.getState().mask?.area).toBe(2500);
    expect(s.getState().error).toBeNull();
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

  it('complete hands over the mask once, clear and a new image reset', async () => {
    const { api } = fakeApi();
    const s = new AutoAnnotateSession(api, undefined, () => undefined);
    s.activate('a.png');
    await vi.advanceTimersByTimeAsync(300);
    expect(s.complete()).toBeNull();
    s.click(15, 15, false);
    await vi.advanceTimersByTimeAsync(150);
    expect(s.getState().hintUntil).toBeGreaterThan(Date.now());
    expect(s.complete()?.pointCount).toBe(1);
    expect(s.getState().points).toHaveLength(0);
    s.click(15, 15, false);
    s.setImage('b.png');
    expect(s.getState().points).toHaveLength(0);
    expect(s.getState().mask).toBeNull();
  });

  it('tests points against the mask with holes', () => {
    const m = square(0, 0, 100);
    m.vellum_annotations[0]!.polygon.holes = [[[40, 40], [60, 40], [60, 60], [40, 60]]];
    expect(insideMask(m, 10, 10)).toBe(true);
    expect(insideMask(m, 50, 50)).toBe(false);
    expect(insideMask(m, 150, 50)).toBe(false);
    expect(insideMask(null, 1, 1)).toBe(false);
  });
});
