// The top bar never says Saved while an edit is still gathering in the save link's window.
import { describe, expect, it } from 'vitest';
import type { SaveStatus } from '../sync/save';
import { shownSaveStatus } from './saveStatus';

const saved: SaveStatus = { state: 'saved', label: 'Saved', unsavedImages: 0 };

describe('the save status the top bar shows', () => {
  it("says Unsaved changes while an edit gathers, and the manager's word otherwise", () => {
    expect(shownSaveStatus(saved, true)).toEqual({ state: 'pending', label: 'Unsaved changes', unsavedImages: 0 });
    expect(shownSaveStatus({ ...saved, state: 'conflict-merged', label: 'Merged' }, true).label).toBe('Unsaved changes');
    expect(shownSaveStatus(saved, false)).toBe(saved);
    const failing: SaveStatus = { state: 'error', label: 'Not saved', detail: 'Too large', unsavedImages: 1 };
    expect(shownSaveStatus(failing, true)).toBe(failing);
  });
});
