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
    expect(prefs.getState()).toEqual({ collapsed: false, transparency: 50, minScore: 0 });
    prefs.toggleSidebar();
    prefs.changeTransparency(80);
    expect(prefs.getState()).toEqual({ collapsed: true, transparency: 80, minScore: 0 });
    expect(new PanelPrefs().getState()).toEqual({ collapsed: true, transparency: 80, minScore: 0 });
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

  it("keep the predictions' score filter across a reload and hide pending predictions under it on both editors (issue 34)", () => {
    const prefs = new PanelPrefs();
    prefs.changeMinScore(0.62); // the slider's steps are 0.05
    expect(new PanelPrefs().getState().minScore).toBe(0.6);
    const [mine, preview] = [new Editor(), new Editor()];
    const prediction = (id: string, score: number) => ({ id, name: 'car', bounding_box: { x: 0, y: 0, w: 10, h: 10 }, source: { model_id: 'm', score, pending: true } });
    mine.loadStored([prediction('low', 0.3), prediction('high', 0.9)]);
    prefs.applyMinScore([mine, preview]);
    expect([...mine.getView().hidden]).toEqual(['low']);
    expect(preview.predictions.minScore).toBe(0.6);
    prefs.changeMinScore(Number.NaN);
    expect(prefs.getState().minScore).toBe(0);
  });
});
