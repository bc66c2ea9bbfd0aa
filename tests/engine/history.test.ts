import { describe, expect, it } from 'vitest';
import { Editor, HISTORY_LIMIT, type CommandName, type CommandPayload, type EditorAnnotation } from '../../src/engine';
import { box, keypoint, polygon, polyline, TestEditor } from './helpers';

const seg: EditorAnnotation = {
  id: 's', type: 'segmentation', class: 'cat', rle: { size: [10, 10], counts: [22, 3, 7, 3, 65] }, x: 2, y: 2, width: 2, height: 3, attributes: [],
};

function seeded(): Editor {
  let n = 0;
  const e = new Editor({ idGenerator: () => `new${++n}` });
  e.load([
    box('b', 10, 10, 50, 40),
    polygon('p', [[100, 100], [200, 100], [200, 200], [100, 200]], [[[120, 120], [140, 120], [140, 140]]]),
    polyline('l', [[0, 0], [50, 50], [90, 10]]),
    keypoint('k', 300, 300),
    seg,
  ]);
  return e;
}

type Case = { [N in CommandName]: [N, CommandPayload<N>, string] }[CommandName];

const cases: Case[] = [
  ['create', { annotation: box('new', 1, 2, 30, 30) }, 'Create box'],
  ['delete', { ids: ['b', 'l', 'k'] }, 'Delete 3 annotation(s)'],
  ['move', { ids: ['b', 'p', 'l', 'k', 's'], dx: 5, dy: -3 }, 'Move 5 annotation(s)'],
  ['move-vertex', { ref: { id: 'p', ring: 0, index: 2 }, x: 250, y: 260 }, 'Move point'],
  ['move-vertex', { ref: { id: 'p', ring: 1, index: 0 }, x: 125, y: 118 }, 'Move point'],
  ['insert-vertex', { ref: { id: 'l', ring: 0, index: 1 }, x: 20, y: 30 }, 'Insert point'],
  ['delete-vertex', { ref: { id: 'p', ring: 0, index: 1 } }, 'Delete point'],
  ['delete-vertex', { ref: { id: 'p', ring: 1, index: 1 } }, 'Delete point'],
  ['resize-box', { id: 'b', rect: { x: 0, y: 0, width: 20, height: 25 } }, 'Resize box'],
  ['add-hole', { id: 'p', ring: [[160, 160], [180, 160], [180, 180]] }, 'Cut hole'],
  ['set-class', { ids: ['b'], class: 'truck' }, 'Set class'],
  ['set-attributes', { ids: ['b', 'k'], attributes: [{ name: 'occluded', value: true }] }, 'Set attributes'],
  ['paste', { annotations: [box('x', 0, 0, 10, 10), seg], offset: 20 }, 'Paste 2 annotation(s)'],
  ['replace-all', { annotations: [keypoint('z', 1, 1)] }, 'Replace all annotations'],
  ['remove-all', {}, 'Remove all 5 annotation(s)'],
];

describe('commands with undo and redo', () => {
  for (const [name, payload, label] of cases) {
    it(`${name}: changes the document, undo restores it exactly, redo reapplies`, () => {
      const e = seeded();
      const before = structuredClone(e.getDocument());
      e.execute(name, payload as never);
      const after = structuredClone(e.getDocument());
      expect(after).not.toEqual(before);
      expect(e.getUndoLabels()).toEqual([label]);
      expect(e.undo()).toBe(true);
      expect(e.getDocument()).toEqual(before);
      expect(e.canUndo()).toBe(false);
      expect(e.canRedo()).toBe(true);
      expect(e.redo()).toBe(true);
      expect(e.getDocument()).toEqual(after);
    });
  }

  it('moves masks by whole pixels and keeps their bbox in step', () => {
    const e = seeded();
    e.execute('move', { ids: ['s'], dx: 1.4, dy: 2.6 });
    const s = e.getAnnotation('s') as Extract<EditorAnnotation, { type: 'segmentation' }>;
    expect({ x: s.x, y: s.y, width: s.width, height: s.height }).toEqual({ x: 3, y: 5, width: 2, height: 3 });
  });

  it('restores paint order when a deleted shape comes back', () => {
    const e = seeded();
    const order = e.getOrderedIds();
    e.execute('delete', { ids: ['p'] });
    expect(e.getOrderedIds()).toEqual(order.filter((id) => id !== 'p'));
    e.undo();
    expect(e.getOrderedIds()).toEqual(order);
  });

  it('refuses to delete a vertex below the minimum point count', () => {
    const e = new Editor();
    e.load([polygon('t', [[0, 0], [10, 0], [0, 10]]), polyline('l', [[0, 0], [5, 5]])]);
    expect(e.execute('delete-vertex', { ref: { id: 't', ring: 0, index: 0 } })).toBe(false);
    expect(e.execute('delete-vertex', { ref: { id: 'l', ring: 0, index: 0 } })).toBe(false);
    expect(e.canUndo()).toBe(false);
  });

  it('rejects invalid new geometry without touching the document', () => {
    const e = seeded();
    const before = e.getDocument();
    expect(() => e.execute('create', { annotation: polygon('bad', [[0, 0], [1, 1]]) })).toThrow(/at least 3/);
    expect(() => e.execute('move', { ids: ['b'], dx: NaN, dy: 0 })).toThrow();
    expect(e.getDocument()).toEqual(before);
    expect(e.canUndo()).toBe(false);
  });

  it('a command that changes nothing records no entry', () => {
    const e = seeded();
    e.execute('set-class', { ids: ['b'], class: 'car' });
    e.execute('delete', { ids: ['missing'] });
    expect(e.canUndo()).toBe(false);
  });

  it(`keeps the last ${HISTORY_LIMIT} entries`, () => {
    const e = seeded();
    for (let i = 0; i < 60; i++) e.execute('move', { ids: ['k'], dx: 1, dy: 0 });
    expect(e.getUndoLabels()).toHaveLength(HISTORY_LIMIT);
    let undone = 0;
    while (e.undo()) undone++;
    expect(undone).toBe(HISTORY_LIMIT);
    expect(e.getAnnotation('k')).toMatchObject({ x: 310 }); // 60 moves, 50 undone
  });

  it('a new command clears the redo stack', () => {
    const e = seeded();
    e.execute('move', { ids: ['k'], dx: 1, dy: 0 });
    e.undo();
    e.execute('move', { ids: ['b'], dx: 1, dy: 0 });
    expect(e.canRedo()).toBe(false);
  });

  it('notifies subscribers with the ids that changed', () => {
    const e = seeded();
    const seen: unknown[] = [];
    e.subscribe((c) => c.document && seen.push(c.document.all ? 'all' : [...c.document.ids].sort()));
    e.execute('move', { ids: ['b', 'k'], dx: 1, dy: 1 });
    e.undo();
    e.execute('replace-all', { annotations: [] });
    expect(seen).toEqual([['b', 'k'], ['b', 'k'], 'all']);
  });
});

describe('gestures are one history entry', () => {
  it('a drag of two shapes is a single "Move 2 annotation(s)" entry', () => {
    const t = new TestEditor();
    t.editor.load([box('a', 100, 100, 50, 50), box('b', 300, 100, 50, 50)]);
    const before = t.editor.getDocument();
    t.editor.select(['a', 'b']);
    t.drag([120, 120], [170, 150], {}, 20);
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 150, y: 130 });
    expect(t.editor.getAnnotation('b')).toMatchObject({ x: 350, y: 130 });
    expect(t.editor.getUndoLabels()).toEqual(['Move 2 annotation(s)']);
    t.editor.undo();
    expect(t.editor.getDocument()).toEqual(before);
  });

  it('drawing a polygon point by point is a single "Create polygon" entry', () => {
    const t = new TestEditor();
    t.editor.setTool('polygon');
    t.editor.setActiveClass('roof');
    t.clickAll([[10, 10], [100, 10], [100, 100], [10, 100], [10, 10]]);
    expect(t.editor.getUndoLabels()).toEqual(['Create polygon']);
    t.editor.undo();
    expect(t.annotations).toEqual([]);
  });

  it('Escape during a drag rolls it back and records nothing', () => {
    const t = new TestEditor();
    t.editor.load([box('a', 100, 100, 50, 50)]);
    t.down(120, 120).move(140, 140).move(160, 170);
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 140, y: 150 });
    expect(t.key('Escape')).toBe(true);
    t.up(160, 170);
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 100, y: 100 });
    expect(t.editor.canUndo()).toBe(false);
  });
});

describe('batch', () => {
  it('folds create, move, delete and insert into one entry that undoes and redoes exactly', () => {
    const e = seeded();
    const before = structuredClone(e.getDocument());
    e.batch('Complete', () => {
      e.execute('create', { annotation: box('n1', 5, 5, 20, 20) });
      e.execute('move', { ids: ['n1', 'b'], dx: 3, dy: 4 });
      e.execute('move', { ids: ['n1'], dx: 1, dy: 1 });
      e.execute('delete', { ids: ['k'] });
      e.execute('create', { annotation: keypoint('n2', 1, 1) });
      e.execute('delete', { ids: ['n2'] }); // created and deleted inside: leaves no trace
      e.execute('insert-vertex', { ref: { id: 'l', ring: 0, index: 1 }, x: 9, y: 9 });
    });
    const after = structuredClone(e.getDocument());
    expect(e.getUndoLabels()).toEqual(['Complete']);
    expect(after.annotations.map((a) => a.id)).toEqual(['b', 'p', 'l', 's', 'n1']);
    expect(e.getAnnotation('n1')).toMatchObject({ x: 9, y: 10 });
    e.undo();
    expect(e.getDocument()).toEqual(before);
    e.redo();
    expect(e.getDocument()).toEqual(after);
  });

  it('mixes a whole-document replace with later edits in one entry', () => {
    const e = seeded();
    const before = structuredClone(e.getDocument());
    e.batch('Copy previous', () => {
      e.execute('replace-all', { annotations: [box('q', 0, 0, 20, 20), keypoint('r', 5, 5)] });
      e.execute('move', { ids: ['q'], dx: 10, dy: 0 });
      e.execute('delete', { ids: ['r'] });
    });
    const after = structuredClone(e.getDocument());
    expect(after.annotations).toEqual([box('q', 10, 0, 20, 20)]);
    e.undo();
    expect(e.getDocument()).toEqual(before);
    expect(e.hitTest(60, 50, 0)).toBe('b');
    e.redo();
    expect(e.getDocument()).toEqual(after);
    expect(e.hitTest(60, 50, 0)).toBeNull();
  });

  it('rolls back everything when the batch throws', () => {
    const e = seeded();
    const before = structuredClone(e.getDocument());
    expect(() => e.batch('Broken', () => {
      e.execute('move', { ids: ['b'], dx: 3, dy: 4 });
      e.execute('create', { annotation: polygon('bad', [[0, 0], [1, 1]]) });
    })).toThrow();
    expect(e.getDocument()).toEqual(before);
    expect(e.canUndo()).toBe(false);
  });
});

describe('paint order bookkeeping', () => {
  it('keeps order through many creates, deletes and undos (sparse z after replace-all)', () => {
    const e = new Editor();
    e.load(Array.from({ length: 50 }, (_, i) => keypoint(`k${i}`, i, i)));
    e.execute('replace-all', { annotations: [keypoint('x', 0, 0), keypoint('y', 1, 1)] });
    e.execute('create', { annotation: keypoint('z', 2, 2) });
    expect(e.getOrderedIds()).toEqual(['x', 'y', 'z']);
    expect(e.getZ('z')).toBeGreaterThan(e.getZ('y')!);
    e.execute('delete', { ids: ['y'] });
    e.undo();
    expect(e.getOrderedIds()).toEqual(['x', 'y', 'z']);
    e.undo();
    e.undo();
    expect(e.getOrderedIds()).toEqual(Array.from({ length: 50 }, (_, i) => `k${i}`));
    expect(e.hitTest(49, 49, 0.1)).toBe('k49');
  });
});
