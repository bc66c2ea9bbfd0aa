// Sidebar collapsed state, remembered in browser storage (spec section 2 "Sidebar").
import { create } from 'zustand';
import { readStorage, STORAGE_KEYS, writeStorage } from '../lib/storage';

interface UiState {
  sidebarCollapsed: boolean;
  toggleSidebar(): void;
}

export const useUi = create<UiState>()((set, get) => ({
  sidebarCollapsed: readStorage<boolean>(STORAGE_KEYS.sidebarCollapsed, false),
  toggleSidebar() {
    const next = !get().sidebarCollapsed;
    writeStorage(STORAGE_KEYS.sidebarCollapsed, next);
    set({ sidebarCollapsed: next });
  },
}));
