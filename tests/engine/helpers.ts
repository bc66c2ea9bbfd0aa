// A headless test editor: drives the Editor facade with simulated pointer and keyboard input
// given in image coordinates (converted to screen coordinates through the camera, as a browser
// canvas would deliver them).
import { Editor, type EditorAnnotation, type EditorEvent, type EditorOptions } from '../../src/engine';

export interface Mods {
  shiftKey?: boolean;
  altKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
}

export class TestEditor {
  readonly editor: Editor;
  readonly events: EditorEvent[] = [];
  private n = 0;

  constructor(options: EditorOptions = {}) {
    this.editor = new Editor({
      idGenerator: () => `id${++this.n}`,
      viewport: { width: 1000, height: 800 },
      image: { width: 2000, height: 1500 },
      ...options,
    });
    this.editor.onEvent((e) => this.events.push(e));
  }

  private screen(x: number, y: number): [number, number] {
    return this.editor.imageToScreen(x, y);
  }

  down(x: number, y: number, mods: Mods = {}, button = 0): this {
    const [sx, sy] = this.screen(x, y);
    this.editor.pointerDown({ x: sx, y: sy, button, ...mods });
    return this;
  }

  move(x: number, y: number, mods: Mods = {}): this {
    const [sx, sy] = this.screen(x, y);
    this.editor.pointerMove({ x: sx, y: sy, ...mods });
    return this;
  }

  up(x: number, y: number, mods: Mods = {}, button = 0): this {
    const [sx, sy] = this.screen(x, y);
    this.editor.pointerUp({ x: sx, y: sy, button, ...mods });
    return this;
  }

  click(x: number, y: number, mods: Mods = {}): this {
    return this.down(x, y, mods).up(x, y, mods);
  }

  dblclick(x: number, y: number): this {
    this.click(x, y).click(x, y);
    const [sx, sy] = this.screen(x, y);
    this.editor.doubleClick({ x: sx, y: sy });
    return this;
  }

  /** Press at `from`, move in `steps` increments to `to`, release. */
  drag(from: [number, number], to: [number, number], mods: Mods = {}, steps = 5): this {
    this.down(from[0], from[1], mods);
    for (let i = 1; i <= steps; i++) {
      this.move(from[0] + ((to[0] - from[0]) * i) / steps, from[1] + ((to[1] - from[1]) * i) / steps, mods);
    }
    return this.up(to[0], to[1], mods);
  }

  key(key: string, mods: Mods = {}): boolean {
    return this.editor.keyDown({ key, ...mods });
  }

  /** Clicks each point in turn (polygon / polyline drawing). */
  clickAll(points: readonly (readonly [number, number])[]): this {
    for (const [x, y] of points) this.click(x, y);
    return this;
  }

  get annotations(): EditorAnnotation[] {
    return this.editor.getAnnotations();
  }

  get selected(): string[] {
    return [...this.editor.getView().selected].sort();
  }

  only(): EditorAnnotation {
    const all = this.annotations;
    if (all.length !== 1) throw new Error(`Expected one annotation, found ${all.length}`);
    return all[0]!;
  }
}

export const box = (id: string, x: number, y: number, width: number, height: number, cls = 'car'): EditorAnnotation => ({
  id, type: 'box', class: cls, x, y, width, height, attributes: [],
});

export const polygon = (id: string, points: [number, number][], holes: [number, number][][] = [], cls = 'building'): EditorAnnotation => ({
  id, type: 'polygon', class: cls, points, holes, attributes: [],
});

export const polyline = (id: string, points: [number, number][], cls = 'lane'): EditorAnnotation => ({
  id, type: 'polyline', class: cls, points, attributes: [],
});

export const keypoint = (id: string, x: number, y: number, cls = 'eye'): EditorAnnotation => ({
  id, type: 'keypoint', class: cls, x, y, attributes: [],
});
