// The toast store: durations, the action toast's longer stay, pause and resume, at most four.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The store reads window for its timers; in Node the global object stands in.
(globalThis as any).window ??= globalThis;
const { ACTION_TOAST_MS, toast, toastAction, useToasts } = await import('./toast');

const messages = () => useToasts.getState().toasts.map((t) => t.message);

beforeEach(() => {
  vi.useFakeTimers();
  for (const t of useToasts.getState().toasts) useToasts.getState().dismiss(t.id);
  useToasts.getState().resume();
});
afterEach(() => vi.useRealTimers());

describe('toasts', () => {
  it('leave after their duration; one with an action stays at least ACTION_TOAST_MS', () => {
    toast('Moved 2 images', 'success', 2000);
    const run = vi.fn();
    toastAction('Archived 2 images', { label: 'Undo', run }, 'success', 1000);
    vi.advanceTimersByTime(2001);
    expect(messages()).toEqual(['Archived 2 images']);
    vi.advanceTimersByTime(ACTION_TOAST_MS - 2001);
    expect(messages()).toEqual([]);
    expect(run).not.toHaveBeenCalled();
  });

  it('stop their clocks while paused and go on from where they were', () => {
    toast('Copied 3 annotation(s)', 'neutral', 2000);
    vi.advanceTimersByTime(1500);
    useToasts.getState().pause();
    vi.advanceTimersByTime(60_000);
    expect(messages()).toEqual(['Copied 3 annotation(s)']);
    // A toast that arrives meanwhile waits too.
    toast('Pasted 3 annotation(s)', 'neutral', 2000);
    vi.advanceTimersByTime(60_000);
    expect(messages()).toHaveLength(2);
    useToasts.getState().resume();
    vi.advanceTimersByTime(1000);
    expect(messages()).toEqual(['Pasted 3 annotation(s)']);
    vi.advanceTimersByTime(1001);
    expect(messages()).toEqual([]);
  });

  it('keep four at most, the oldest leaving first; the last one dismissed ends a pause', () => {
    for (let i = 1; i <= 6; i += 1) toast(`t${i}`);
    expect(messages()).toEqual(['t3', 't4', 't5', 't6']);
    useToasts.getState().pause();
    for (const t of useToasts.getState().toasts) useToasts.getState().dismiss(t.id);
    toast('next', 'neutral', 1000);
    vi.advanceTimersByTime(1001);
    expect(messages()).toEqual([]);
  });
});
