// How the editor's canvas is drawn for this annotator (issue 19): class-name labels, the outline
// width and the box tool's crosshair guides (issue 33) are remembered in browser storage; the image adjustments (brightness, contrast,
// gamma) last for the session only and never change the stored image. The canvas (EditorCanvas)
// hands them to the renderer as its display settings.
import { create } from 'zustand';
import type { RenderDisplay } from '../../workers/render-client';
import { readStorage, writeStorage } from '../lib/storage';

const LABELS_KEY = 'vellum.editorLabels';
const OUTLINE_KEY = 'vellum.editorOutlineWidth';
const COLLABORATORS_KEY = 'vellum.editorCollaborators';
const CROSSHAIR_KEY = 'vellum.editorCrosshair';

export const OUTLINE_WIDTHS = [
  { value: 1, label: 'Thin' },
  { value: 2, label: 'Normal' },
  { value: 3, label: 'Thick' },
] as const;

export interface ImageAdjustments {
  /** Factors: 1 is the image as it is. */
  brightness: number;
  contrast: number;
  /** Above 1 brightens the mid-tones. */
  gamma: number;
}

export const NO_ADJUSTMENTS: ImageAdjustments = { brightness: 1, contrast: 1, gamma: 1 };

interface ViewSettings {
  labels: boolean;
  outlineWidth: number;
  adjustments: ImageAdjustments;
  /** The people on the image (live co-editing) in the top bar. */
  collaborators: boolean;
  /** Full-image crosshair guides at the pointer while the box tool is on (issue 33). */
  crosshair: boolean;
  setCrosshair(on: boolean): void;
  setLabels(on: boolean): void;
  setCollaborators(on: boolean): void;
  setOutlineWidth(px: number): void;
  adjust(change: Partial<ImageAdjustments>): void;
  resetAdjustments(): void;
}

const storedWidth = readStorage<number>(OUTLINE_KEY, 2);

export const useViewSettings = create<ViewSettings>()((set) => ({
  labels: readStorage<boolean>(LABELS_KEY, true) !== false,
  outlineWidth: OUTLINE_WIDTHS.some((w) => w.value === storedWidth) ? storedWidth : 2,
  adjustments: NO_ADJUSTMENTS,
  collaborators: readStorage<boolean>(COLLABORATORS_KEY, true) !== false,
  crosshair: readStorage<boolean>(CROSSHAIR_KEY, true) !== false,
  setCrosshair(on) {
    writeStorage(CROSSHAIR_KEY, on);
    set({ crosshair: on });
  },
  setCollaborators(on) {
    writeStorage(COLLABORATORS_KEY, on);
    set({ collaborators: on });
  },
  setLabels(on) {
    writeStorage(LABELS_KEY, on);
    set({ labels: on });
  },
  setOutlineWidth(px) {
    writeStorage(OUTLINE_KEY, px);
    set({ outlineWidth: px });
  },
  adjust(change) {
    set((s) => ({ adjustments: { ...s.adjustments, ...change } }));
  },
  resetAdjustments() {
    set({ adjustments: NO_ADJUSTMENTS });
  },
}));

/** True when the image is drawn as it is. */
export function unadjusted(a: ImageAdjustments): boolean {
  return a.brightness === 1 && a.contrast === 1 && a.gamma === 1;
}

/** The settings as the renderer takes them. */
export function renderDisplay(s: Pick<ViewSettings, 'labels' | 'outlineWidth' | 'adjustments'>): RenderDisplay {
  return { labels: s.labels, outlineWidth: s.outlineWidth, ...s.adjustments };
}
