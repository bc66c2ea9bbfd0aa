// The selected project, remembered in browser storage (spec section 2: choosing a project on
// /select stores it as the selected project).
import { create } from 'zustand';
import type { Project } from '../../contract/projects';
import { readStorage, STORAGE_KEYS, writeStorage } from '../lib/storage';

interface SelectionState {
  project: Project | null;
  select(project: Project): void;
  update(project: Project): void;
  clear(): void;
}

export const useSelection = create<SelectionState>()((set, get) => ({
  project: readStorage<Project | null>(STORAGE_KEYS.selectedProject, null),
  select(project) {
    writeStorage(STORAGE_KEYS.selectedProject, project);
    set({ project });
  },
  update(project) {
    if (get().project?.id !== project.id) return;
    writeStorage(STORAGE_KEYS.selectedProject, project);
    set({ project });
  },
  clear() {
    writeStorage(STORAGE_KEYS.selectedProject, null);
    set({ project: null });
  },
}));
