// The editor's layout preferences, without React, kept in browser storage: the Annotations sidebar
// collapsed or not, the transparency of the shapes, drawn with it on the user's editor and on a
// version's preview, and the score under which a model's pending predictions are hidden (issue 34).
// The screen reads it (pages/annotate/hooks/usePanelPrefs.ts).
import type { Editor } from '../../engine';
import { readStorage, writeStorage } from '../lib/storage';

const SIDEBAR_KEY = 'vellum.editorSidebarCollapsed';
const TRANSPARENCY_KEY = 'vellum.editorTransparency';
const MIN_SCORE_KEY = 'vellum.editorPredictionMinScore';

/** A stored score as the slider takes it: 0..1 in steps of 0.05 (anything else is 0). */
export function storedMinScore(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(1, Math.max(0, Math.round(v * 20) / 20)) : 0;
}

export interface PanelPrefsState {
  collapsed: boolean;
  /** 0-100. */
  transparency: number;
  /** 0..1: pending predictions scored under it are hidden. */
  minScore: number;
}

export class PanelPrefs {
  private state: PanelPrefsState = { collapsed: readStorage<boolean>(SIDEBAR_KEY, false), transparency: readStorage<number>(TRANSPARENCY_KEY, 50), minScore: storedMinScore(readStorage<number>(MIN_SCORE_KEY, 0)) };
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

  changeMinScore(value: number): void {
    const minScore = storedMinScore(value);
    this.set({ minScore });
    writeStorage(MIN_SCORE_KEY, minScore);
  }

  /** Both editors (the user's and the version preview's) hide pending predictions under the chosen score. */
  applyMinScore(editors: readonly Editor[]): void {
    for (const e of editors) e.predictions.setMinScore(this.state.minScore);
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
