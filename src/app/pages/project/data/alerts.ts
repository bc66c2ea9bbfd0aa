// In-app alerts for the failures spec section 8 lists as alerts: one modal message at a time.
import { create } from 'zustand';

interface AlertState {
  messages: string[];
  show(message: string): void;
  dismiss(): void;
}

export const useAlerts = create<AlertState>()((set, get) => ({
  messages: [],
  show(message) {
    if (get().messages.includes(message)) return;
    set({ messages: [...get().messages, message] });
  },
  dismiss() {
    set({ messages: get().messages.slice(1) });
  },
}));

export const showAlert = (message: string) => useAlerts.getState().show(message);
