// The render client's scene sync: a shape created while a scene is still being posted over several
// tasks (a large document just opened, all shapes moved) is drawn once the sync ends, not only
// at the next change. A keypoint or any click-created shape (issue 31: "static tools lose an
// annotation") could land in that window, stay undrawn, and be placed again by the user.
import { describe, expect, it } from 'vitest';
import { Editor, type EditorAnnotation } from '../engine';
import { sceneSync } from './render-client';
import type { PackedScene } from './protocol';

const box = (id: string, x: number): EditorAnnotation => ({ id, type: 'box', class: 'car', x, y: 0, width: 10, height: 10, attributes: [] });

/** Spins for `ms`, so each posted part takes a task's whole budget and the sync spans several tasks. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // a slow backend
  }
}

describe('sceneSync', () => {
  it('draws a shape created between two tasks of a sync', async () => {
    const editor = new Editor({ viewport: { width: 1000, height: 800 }, image: { width: 1000, height: 800 } });
    editor.load([box('a', 0), box('b', 20), box('c', 40)]);
    const drawn = new Set<string>();
    let parts = 0;
    const backend = {
      applyScene(s: PackedScene) {
        parts++;
        if (s.reset) drawn.clear();
        for (const id of s.removed) drawn.delete(id);
        for (const id of s.ids) drawn.add(id);
        busy(8);
      },
    };
    // One shape per part: the whole scene goes over three tasks.
    const scene = sceneSync(editor, backend as never, () => 0, 1);
    const off = editor.subscribe((c) => c.document && scene.schedule());
    scene.sync();
    expect(parts).toBe(1);
    // Between two tasks of the sync, as the render client's subscription hears it.
    editor.setTool('keypoint');
    editor.setActiveClass('eye');
    editor.pointerDown({ x: 500, y: 400 });
    editor.pointerUp({ x: 500, y: 400 });
    const keypoint = editor.getOrderedIds().find((id) => !['a', 'b', 'c'].includes(id))!;
    while (scene.pending) await new Promise((resolve) => setTimeout(resolve, 0));
    expect([...drawn].sort()).toEqual(['a', 'b', 'c', keypoint].sort());
    off();
    scene.dispose();
  });
});
