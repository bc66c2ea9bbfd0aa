// @vitest-environment happy-dom
// The error boundary (issue 30): a part that throws while rendering is replaced by a message with
// Try again, its siblings stay, and it comes back on Try again or when its reset key changes.
import { act, createElement, Fragment } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorBoundary } from './ErrorBoundary';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root;
let host: HTMLElement;
let broken = true;
beforeEach(() => {
  broken = true;
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host, { onCaughtError: () => undefined });
  // React reports the errors it catches on the console; they are expected here.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  act(() => root.unmount());
  host.remove();
  vi.restoreAllMocks();
});

function Part() {
  if (broken) throw new TypeError('Cannot convert object to primitive value');
  return createElement('p', null, 'The panel');
}
const screen = (resetKey?: unknown, detail?: string) =>
  createElement(Fragment, null, createElement('p', null, 'The canvas'), createElement(ErrorBoundary, { what: 'The attributes panel', resetKey, detail, children: createElement(Part) }));

describe('ErrorBoundary', () => {
  it('shows a message in place of the part that failed, keeps the rest, and Try again renders it anew', () => {
    act(() => root.render(screen(undefined, 'Your annotations are still saved.')));
    expect(host.textContent).toContain('The canvas');
    const alert = host.querySelector('[role="alert"]')!;
    expect(alert.textContent).toContain('The attributes panel could not be shown');
    expect(alert.textContent).toContain('Your annotations are still saved.');
    // Still failing: the message stays.
    act(() => alert.querySelector('button')!.click());
    expect(host.querySelector('[role="alert"]')).not.toBeNull();
    broken = false;
    act(() => host.querySelector<HTMLButtonElement>('[role="alert"] button')!.click());
    expect(host.querySelector('[role="alert"]')).toBeNull();
    expect(host.textContent).toBe('The canvasThe panel');
  });

  it('renders the part again by itself when its reset key changes (another selection)', () => {
    act(() => root.render(screen('shape-a')));
    expect(host.querySelector('[role="alert"]')).not.toBeNull();
    broken = false;
    act(() => root.render(screen('shape-a')));
    expect(host.querySelector('[role="alert"]')).not.toBeNull();
    act(() => root.render(screen('shape-b')));
    expect(host.querySelector('[role="alert"]')).toBeNull();
    expect(host.textContent).toContain('The panel');
  });
});
