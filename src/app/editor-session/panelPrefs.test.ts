// The editor's layout preferences as the user sees them: the sidebar's state and the shapes'
// transparency are kept on this device (a reload shows them as left), and the transparency is
// what both the user's editor and a version's preview draw with.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Editor } from '../../engine';
import { PanelPrefs } from './panelPrefs';
import { MemoryStorage } from '../../../tests/support/sessionTestkit';

describe("the editor's layout preferences", () => {
  beforeEach(() => {
    (globalThis as { window?: unknown }).window = { localStorage: new MemoryStorage() };
  });
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it('start expanded at 50% and are kept across a reload once changed', () => {
    const prefs = new PanelPrefs();
    expect(prefs.getState()).toEqual({ collapsed: false, transparency: 50 });
    prefs.toggleSidebar();
    prefs.changeTransparency(80);
    expect(prefs.getState()).toEqual({ collapsed: true, transparency: 80 });
    expect(new PanelPrefs().getState()).toEqual({ collapsed: true, transparency: 80 });
    // The History view expands a collapsed sidebar, and that is kept too.
    prefs.expandSidebar();
    expect(new PanelPrefs().getState().collapsed).toBe(false);
  });

  it("draws the user's shapes and a version's preview with the chosen transparency", () => {
    const prefs = new PanelPrefs();
    const [mine, preview] = [new Editor(), new Editor()];
    prefs.changeTransparency(20);
    prefs.applyTransparency([mine, preview]);
    expect([mine.getView().transparency, preview.getView().transparency]).toEqual([20, 20]);
  });
});
