// Drawing by keyboard (issue 37, WCAG 2.1.1): with the canvas focused and a drawing tool on, Enter
// shows a crosshair cursor (view.keyCursor, image coordinates) at the middle of the view. The
// arrows move it KEY_CURSOR_STEP screen px (Shift: KEY_CURSOR_STEP_SHIFT, Alt: 1), Enter or Space
// places a corner or a point there (a click of the tool), Enter again on the point just placed
// closes the polygon or finishes the polyline or skeleton, Escape cancels the shape, then hides
// the cursor. The tools are driven by the same events a pointer gives them, so a shape drawn by
// keyboard is exactly one drawn by clicks (one undo step, selected when done).
import { imageToScreen, screenToImage, type CameraState, type Size } from './camera';
import type { Point } from './model/types';
import type { Tool, ToolPointerEvent } from './tools/types';

export const KEY_CURSOR_STEP = 10;
export const KEY_CURSOR_STEP_SHIFT = 50;
/** Alt + arrow: one screen pixel, for the last bit of precision. */
export const KEY_CURSOR_STEP_FINE = 1;

/** The tools a keyboard cursor draws with. */
const KEY_DRAW_TOOLS: ReadonlySet<string> = new Set(['box', 'polygon', 'polyline', 'keypoint', 'skeleton']);
/** Tools where Enter on the point just placed ends the shape rather than placing it twice. */
const ENTER_ENDS: ReadonlySet<string> = new Set(['polygon', 'polyline', 'skeleton']);

export interface KeyCursorTarget {
  camera(): CameraState;
  viewport(): Size;
  clamp(x: number, y: number): [number, number];
  /** Shows the cursor (null hides it): view.keyCursor. */
  show(p: Point | null): void;
}

export interface CursorKey {
  readonly key: string;
  readonly shiftKey?: boolean;
  readonly altKey?: boolean;
  readonly ctrlKey?: boolean;
  readonly metaKey?: boolean;
}

export class KeyboardCursor {
  private focused = false;
  private at: Point | null = null;
  /** Where the last corner or point was placed, until the cursor moves. */
  private placedHere = false;

  constructor(private readonly target: KeyCursorTarget) {}

  get active(): boolean {
    return this.at !== null;
  }

  /** The canvas has keyboard focus (only then do Enter, Space and the arrows draw); losing it hides the cursor. */
  setFocused(on: boolean): void {
    this.focused = on;
    if (!on) this.hide();
  }

  hide(): void {
    if (!this.at) return;
    this.at = null;
    this.placedHere = false;
    this.target.show(null);
  }

  /** A key on the focused canvas; true when the cursor took it. */
  keyDown(e: CursorKey, tool: Tool): boolean {
    if (!KEY_DRAW_TOOLS.has(tool.id)) this.hide();
    if (!this.focused || !KEY_DRAW_TOOLS.has(tool.id) || e.ctrlKey || e.metaKey) return false;
    if (!this.at) {
      if (e.key !== 'Enter' || e.shiftKey || e.altKey || tool.isBusy()) return false;
      const { width, height } = this.target.viewport();
      const [x, y] = screenToImage(this.target.camera(), width / 2, height / 2);
      this.moveTo(tool, x, y);
      return true;
    }
    switch (e.key) {
      case 'ArrowLeft':
      case 'ArrowRight':
      case 'ArrowUp':
      case 'ArrowDown': {
        const step = (e.altKey ? KEY_CURSOR_STEP_FINE : e.shiftKey ? KEY_CURSOR_STEP_SHIFT : KEY_CURSOR_STEP) / this.target.camera().scale;
        const dx = e.key === 'ArrowLeft' ? -step : e.key === 'ArrowRight' ? step : 0;
        const dy = e.key === 'ArrowUp' ? -step : e.key === 'ArrowDown' ? step : 0;
        this.moveTo(tool, this.at[0] + dx, this.at[1] + dy);
        return true;
      }
      case 'Enter':
        if (this.placedHere && tool.isBusy() && ENTER_ENDS.has(tool.id)) {
          tool.onKeyDown({ key: 'Enter' });
          this.placedHere = false;
          return true;
        }
        this.place(tool);
        return true;
      case ' ':
        this.place(tool);
        return true;
      case 'Escape':
        if (tool.isBusy()) tool.cancel();
        else this.hide();
        return true;
      default:
        return false;
    }
  }

  private event(x: number, y: number): ToolPointerEvent {
    const camera = this.target.camera();
    const [sx, sy] = imageToScreen(camera, x, y);
    return { x, y, sx, sy, button: 0, scale: camera.scale };
  }

  private moveTo(tool: Tool, x: number, y: number): void {
    this.at = this.target.clamp(x, y);
    this.placedHere = false;
    this.target.show(this.at);
    tool.onPointerMove(this.event(this.at[0], this.at[1]));
  }

  /** A click of the tool at the cursor. */
  private place(tool: Tool): void {
    const [x, y] = this.at!;
    const e = this.event(x, y);
    tool.onPointerDown(e);
    tool.onPointerUp(e);
    this.placedHere = true;
  }
}
