// Brief messages (DESIGN.md: toasts for brief messages).
import { create } from 'zustand';

export type ToastTone = 'neutral' | 'success' | 'danger';
export interface ToastItem {
  id: number;
  message: string;
  tone: ToastTone;
}

interface ToastState {
  toasts: ToastItem[];
  show(message: string, tone?: ToastTone, durationMs?: number): void;
  dismiss(id: number): void;
}

let nextId = 1;

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  show(message, tone = 'neutral', durationMs = 2600) {
    const id = nextId++;
    set({ toasts: [...get().toasts.slice(-3), { id, message, tone }] });
    window.setTimeout(() => get().dismiss(id), durationMs);
  },
  dismiss(id) {
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },
}));

export const toast = (message: string, tone?: ToastTone, durationMs?: number) => useToasts.getState().show(message, tone, durationMs);
