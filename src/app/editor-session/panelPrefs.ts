// The editor's layout preferences, without React, kept in browser storage: the Annotations sidebar
// collapsed or not, and the transparency of the shapes, drawn with it on the user's editor and on a
// version's preview. The screen reads it (pages/annotate/hooks/usePanelPrefs.ts).
import type { Editor } from '../../engine';
import { readStorage, writeStorage } from '../lib/storage';

const SIDEBAR_KEY = 'vellum.editorSidebarCollapsed';
const TRANSPARENCY_KEY = 'vellum.editorTransparency';

export interface PanelPrefsState {
  collapsed: boolean;
  /** 0-100. */
  transparency: number;
}

export class PanelPrefs {
  private state: PanelPrefsState = { collapsed: readStorage<boolean>(SIDEBAR_KEY, false), transparency: readStorage<number>(TRANSPARENCY_KEY, 50) };
  private readonly listeners = new Set<() => void>();

  getState = (): PanelPrefsState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  expandSidebar(): void {
    this.set({ collapsed: false });
    writeStorage(SIDEBAR_KEY, false);
  }

  toggleSidebar(): void {
    const collapsed = !this.state.collapsed;
    writeStorage(SIDEBAR_KEY, collapsed);
    this.set({ collapsed });
  }

  changeTransparency(value: number): void {
    this.set({ transparency: value });
    writeStorage(TRANSPARENCY_KEY, value);
  }

  /** Both editors (the user's and the version preview's) draw shapes with the chosen transparency. */
  applyTransparency(editors: readonly Editor[]): void {
    for (const e of editors) e.setTransparency(this.state.transparency);
  }

  private set(patch: Partial<PanelPrefsState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l();
  }
}
