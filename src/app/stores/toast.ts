// Brief messages (DESIGN.md: toasts for brief messages), optionally with one action ('Undo').
// A toast leaves after its duration; while the pointer or the keyboard focus is on the toasts
// their clocks stop (`pause`), and they run again from where they were (`resume`).
import { create } from 'zustand';

export type ToastTone = 'neutral' | 'success' | 'danger';
export interface ToastAction {
  /** The button's text: 'Undo'. */
  label: string;
  /** Runs once; the toast leaves when it is chosen. */
  run(): void;
}
export interface ToastItem {
  id: number;
  message: string;
  tone: ToastTone;
  action?: ToastAction;
}

interface ToastState {
  toasts: ToastItem[];
  show(message: string, tone?: ToastTone, durationMs?: number, action?: ToastAction): number;
  dismiss(id: number): void;
  pause(): void;
  resume(): void;
}

/** How long a toast with an action stays, at least: time to read it and reach the button. */
export const ACTION_TOAST_MS = 8000;
/** Toasts on screen at once; an older one leaves when another arrives. */
const MAX_TOASTS = 4;

let nextId = 1;
// Per toast: its timer and the time it has left.
const clocks = new Map<number, { timer: number | null; left: number; started: number }>();
let paused = false;

function start(id: number, dismiss: (id: number) => void) {
  const c = clocks.get(id);
  if (!c || c.timer !== null) return;
  c.started = Date.now();
  c.timer = window.setTimeout(() => dismiss(id), c.left);
}
function stop(id: number) {
  const c = clocks.get(id);
  if (!c || c.timer === null) return;
  window.clearTimeout(c.timer);
  c.timer = null;
  c.left = Math.max(1000, c.left - (Date.now() - c.started));
}

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  show(message, tone = 'neutral', durationMs = 2600, action) {
    const id = nextId++;
    const kept = get().toasts.slice(-(MAX_TOASTS - 1));
    for (const t of get().toasts) if (!kept.includes(t)) get().dismiss(t.id);
    set({ toasts: [...kept, { id, message, tone, action }] });
    clocks.set(id, { timer: null, left: action ? Math.max(durationMs, ACTION_TOAST_MS) : durationMs, started: 0 });
    if (!paused) start(id, get().dismiss);
    return id;
  },
  dismiss(id) {
    const c = clocks.get(id);
    if (c?.timer != null) window.clearTimeout(c.timer);
    clocks.delete(id);
    if (get().toasts.some((t) => t.id === id)) set({ toasts: get().toasts.filter((t) => t.id !== id) });
    // The last one gone under the pointer: no pointer-leave may follow, so the next toast runs.
    if (!get().toasts.length) paused = false;
  },
  pause() {
    paused = true;
    for (const id of clocks.keys()) stop(id);
  },
  resume() {
    paused = false;
    for (const id of clocks.keys()) start(id, get().dismiss);
  },
}));

export const toast = (message: string, tone?: ToastTone, durationMs?: number): void => {
  useToasts.getState().show(message, tone, durationMs);
};

/** A toast with one action button, for example `toastAction('Archived 3 images', { label: 'Undo', run })`. */
export const toastAction = (message: string, action: ToastAction, tone: ToastTone = 'success', durationMs = ACTION_TOAST_MS) => useToasts.getState().show(message, tone, durationMs, action);
