// @vitest-environment happy-dom
// The Attributes panel shows any stored value without throwing (issue 30, finding 4): a value
// saved under another class or before a definition changed can be any JSON (an object, a list, a
// number where text is defined...). `String(value)` of {"toString": 1} threw, and with no error
// boundary the whole editor went blank when such a shape was selected.
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Editor } from '../../../engine';
import type { ProjectClass } from '../../../contract/projects';
import { AttributesPanel } from './AttributesPanel';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const CAR: ProjectClass = {
  name: 'car',
  type: 'box',
  color: '#F07575',
  attributes: [
    { name: 'colour', kind: 'select', options: ['red', 'blue'], default: 'red' },
    { name: 'doors', kind: 'number' },
    { name: 'plate', kind: 'text', default: '' },
    { name: 'parked', kind: 'checkbox', default: false },
  ],
};

let root: Root | null = null;
let host: HTMLElement | null = null;
afterEach(() => {
  act(() => root?.unmount());
  host?.remove();
  root = null;
});

function renderPanel(values: Record<string, unknown>) {
  const editor = new Editor();
  editor.loadStored([{ id: 'a', name: 'car', bounding_box: { x: 1, y: 1, w: 5, h: 5 }, attributes: Object.entries(values).map(([name, value]) => ({ name, value })) }]);
  editor.select(['a']);
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
  act(() => root!.render(createElement(AttributesPanel, { editor, view: editor.getView(), documentVersion: 0, classes: [CAR] })));
  return host;
}

const valueOf = (panel: HTMLElement, label: string) => {
  const field = [...panel.querySelectorAll('label')].find((l) => l.textContent === label);
  const control = panel.querySelector<HTMLInputElement | HTMLSelectElement>(`#${CSS.escape(field!.htmlFor)}`)!;
  return control instanceof HTMLSelectElement ? control.selectedOptions[0]?.textContent : control.value;
};

describe('the Attributes panel with values its class does not define', () => {
  it.each([
    ['an object without toString', { toString: 1 }, '{"toString":1}'],
    ['an object', { a: [1, 2] }, '{"a":[1,2]}'],
    ['a list', ['x', 2], '["x",2]'],
    ['a number', 42, '42'],
    ['a boolean', true, 'true'],
  ])('shows %s in every kind of field', (_what, value, shown) => {
    const panel = renderPanel({ colour: value, doors: value, plate: value, parked: value });
    expect(panel.querySelector('[data-testid="attributes-panel"]')).not.toBeNull();
    const notes = [...panel.querySelectorAll('span')].map((n) => n.textContent);
    expect(valueOf(panel, 'colour')).toBe(`${shown} (not an option)`);
    // A number field holds numbers only: another value is named under it.
    expect(valueOf(panel, 'doors')).toBe(typeof value === 'number' ? shown : '');
    if (typeof value !== 'number') expect(notes).toContain(`Saved value: ${shown} (must be a number)`);
    expect(valueOf(panel, 'plate')).toBe(shown);
    expect(notes).toContain(`Saved value: ${shown} (must be text)`);
    expect(panel.querySelector<HTMLInputElement>('input[type="checkbox"]')!.checked).toBe(value === true);
    if (typeof value !== 'boolean') expect(notes).toContain(`Saved value: ${shown} (must be true or false)`);
  });

  it('names nothing when the values fit', () => {
    const panel = renderPanel({ colour: 'blue', doors: 4, plate: 'AB 12', parked: true });
    expect([valueOf(panel, 'colour'), valueOf(panel, 'doors'), valueOf(panel, 'plate')]).toEqual(['blue', '4', 'AB 12']);
    expect(panel.textContent).not.toContain('Saved value');
  });

  it('cuts a long value for display', () => {
    const panel = renderPanel({ plate: { text: 'x'.repeat(5000) } });
    expect(valueOf(panel, 'plate')!.length).toBeLessThanOrEqual(201);
  });
});

describe('the Attributes panel behind its error boundary', () => {
  it('a render error shows the message in its place (not a blank screen) and another selection renders it anew', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const editor = new Editor();
    editor.loadStored([
      { id: 'a', name: 'car', bounding_box: { x: 1, y: 1, w: 5, h: 5 } },
      { id: 'b', name: 'car', bounding_box: { x: 9, y: 1, w: 5, h: 5 } },
    ]);
    const real = editor.getAnnotation.bind(editor);
    // A fault in reading shape a, whatever its cause.
    vi.spyOn(editor, 'getAnnotation').mockImplementation((id) => {
      if (id === 'a') throw new TypeError('Cannot convert object to primitive value');
      return real(id);
    });
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host, { onCaughtError: () => undefined });
    const show = () => act(() => root!.render(createElement(AttributesPanel, { editor, view: editor.getView(), documentVersion: 0, classes: [CAR] })));
    editor.select(['a']);
    show();
    expect(host.querySelector('[role="alert"]')?.textContent).toContain('The attributes panel could not be shown');
    editor.select(['b']);
    show();
    expect(host.querySelector('[role="alert"]')).toBeNull();
    expect(host.querySelector('[data-testid="attributes-panel"]')).not.toBeNull();
    vi.restoreAllMocks();
  });
});

