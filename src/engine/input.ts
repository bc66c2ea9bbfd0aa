// Pointer and key routing for the Editor facade: panning by middle button or Space + drag in
// every tool, the active tool's events in image coordinates, the editor's own keys (delete,
// nudge, Escape, W/A/S/D), drawing by keyboard on the focused canvas (./keyboard-cursor.ts), and
// the pause that keeps input off a document on its way out.
import { PAN_STEP, screenToImage, type CameraState, type Size } from './camera';
import { KeyboardCursor } from './keyboard-cursor';
import type { Point, VertexRef } from './model/types';
import type { Modifiers, Tool, ToolPointerEvent } from './tools/types';
import type { ViewState } from './view';

export const NUDGE = 1;
export const NUDGE_SHIFT = 10;

/** Pointer input in canvas CSS pixels (e.g. event.offsetX/offsetY). */
export interface ScreenPointerInput extends Modifiers {
  readonly x: number;
  readonly y: number;
  /** 0 primary, 1 middle, 2 secondary (PointerEvent.button). */
  readonly button?: number;
}

export interface KeyInput extends Modifiers {
  readonly key: string;
}

export interface WheelInput {
  readonly x: number;
  readonly y: number;
  readonly deltaY: number;
}

/** What the router acts on: the editor's state and the edits keys make. */
export interface InputTarget {
  tool(): Tool;
  camera(): CameraState;
  view(): ViewState;
  panBy(dx: number, dy: number): void;
  /** Deletes the picked vertex and unpicks it. */
  deleteVertex(ref: VertexRef): void;
  deleteSelected(): number;
  nudgeSelected(dx: number, dy: number): void;
  clearSelection(): void;
  /** Enter / Delete on a selection of pending predictions (accept / reject, then the next); false when not taken. */
  reviewKey(key: 'Enter' | 'Delete'): boolean;
  viewport(): Size;
  clampToImage(x: number, y: number): [number, number];
  /** Shows the keyboard cursor (view.keyCursor); null hides it. */
  showKeyCursor(p: Point | null): void;
}

export class InputRouter {
  private paused = false;
  private spaceDown = false;
  private panning: { sx: number; sy: number } | null = null;
  private readonly cursor: KeyboardCursor;

  constructor(private readonly target: InputTarget) {
    this.cursor = new KeyboardCursor({ camera: () => target.camera(), viewport: () => target.viewport(), clamp: (x, y) => target.clampToImage(x, y), show: (p) => target.showKeyCursor(p) });
  }

  /** See Editor.setCanvasFocused. */
  setCanvasFocused(on: boolean): void {
    this.cursor.setFocused(on);
  }

  private toToolEvent(e: ScreenPointerInput): ToolPointerEvent {
    const camera = this.target.camera();
    const [x, y] = screenToImage(camera, e.x, e.y);
    return {
      x, y, sx: e.x, sy: e.y,
      button: e.button ?? 0,
      scale: camera.scale,
      shiftKey: e.shiftKey, altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey,
    };
  }

  pointerDown(e: ScreenPointerInput): void {
    // Middle button or space+drag pans in every tool.
    if ((e.button ?? 0) === 1 || this.spaceDown) {
      this.panning = { sx: e.x, sy: e.y };
      return;
    }
    if (this.paused) return;
    this.cursor.hide();
    this.target.tool().onPointerDown(this.toToolEvent(e));
  }

  /** See Editor.setInputPaused. */
  setPaused(on: boolean): void {
    if (on === this.paused) return;
    this.paused = on;
    if (on) {
      this.cursor.hide();
      this.target.tool().cancel();
    }
  }

  pointerMove(e: ScreenPointerInput): void {
    if (this.panning) {
      this.target.panBy(e.x - this.panning.sx, e.y - this.panning.sy);
      this.panning = { sx: e.x, sy: e.y };
      return;
    }
    if (this.paused) return;
    // The pointer takes over from the keyboard's cursor.
    this.cursor.hide();
    this.target.tool().onPointerMove(this.toToolEvent(e));
  }

  pointerUp(e: ScreenPointerInput): void {
    if (this.panning) {
      this.panning = null;
      return;
    }
    if (this.paused) return;
    this.target.tool().onPointerUp(this.toToolEvent(e));
  }

  doubleClick(e: ScreenPointerInput): void {
    if (this.paused) return;
    this.target.tool().onDoubleClick(this.toToolEvent(e));
  }

  /** See Editor.keyDown. */
  keyDown(e: KeyInput): boolean {
    if (this.paused) return false;
    const tool = this.target.tool();
    if (this.cursor.keyDown(e, tool)) return true;
    if (tool.onKeyDown({ key: e.key, shiftKey: e.shiftKey, altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey })) return true;
    const mod = e.ctrlKey || e.metaKey || e.altKey;
    if (e.key === ' ') {
      this.spaceDown = true;
      return true;
    }
    if (mod) return false;
    if (tool.isBusy()) return false;
    const view = this.target.view();
    switch (e.key) {
      case 'Delete':
      case 'Backspace': {
        if (view.readOnly) return false;
        const v = view.selectedVertex;
        if (v) {
          this.target.deleteVertex(v);
          return true;
        }
        return this.target.reviewKey('Delete') || this.target.deleteSelected() > 0;
      }
      case 'Enter':
        return !view.readOnly && this.target.reviewKey('Enter');
      case 'ArrowLeft':
      case 'ArrowRight':
      case 'ArrowUp':
      case 'ArrowDown': {
        if (view.selected.size === 0 || view.readOnly) return false;
        const step = e.shiftKey ? NUDGE_SHIFT : NUDGE;
        const dx = e.key === 'ArrowLeft' ? -step : e.key === 'ArrowRight' ? step : 0;
        const dy = e.key === 'ArrowUp' ? -step : e.key === 'ArrowDown' ? step : 0;
        this.target.nudgeSelected(dx, dy);
        return true;
      }
      case 'Escape':
        if (view.selected.size === 0) return false;
        this.target.clearSelection();
        return true;
    }
    // W/A/S/D move the view over the image: W shows what is above (content moves down).
    const pan: Record<string, [number, number]> = { w: [0, PAN_STEP], s: [0, -PAN_STEP], a: [PAN_STEP, 0], d: [-PAN_STEP, 0] };
    const p = pan[e.key.toLowerCase()];
    if (p) {
      this.target.panBy(p[0], p[1]);
      return true;
    }
    return false;
  }

  keyUp(e: KeyInput): void {
    if (e.key === ' ') this.spaceDown = false;
  }
}
