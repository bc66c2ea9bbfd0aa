// Where the keyboard goes after a route change (issue 37, WCAG 2.4.3): a single-page app keeps
// the old focus on a link that has left the page, so focus fell to <body> and Tab started again
// from the top. After a change of path, once the new page has rendered its target, focus goes:
//   1. back to the element the person left this path from, when they come back to it (Back from
//      the editor to the tile of its image): an element marked `data-focus-key` that was clicked
//      or pressed is remembered for its path;
//   2. else to the element the page marks `data-route-focus`;
//   3. else to the page's heading.
// It never takes focus from an element the person or the page has focused meanwhile, nor from a
// control that stayed on the page (a tab link): only a focus lost to <body> is moved. A change of
// query string alone (filters in the URL) moves nothing.
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';

/** How long a page may take to render its target (a first load shows skeletons). */
const WAIT_MS = 5000;
/** Paths remembered (most recent last): enough for any Back chain a person walks. */
const MAX_REMEMBERED = 50;

/** The `data-focus-key` a person left each path from. */
const leftFrom = new Map<string, string>();
let lastActivated: { path: string; key: string } | null = null;

function focusLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body || !active.isConnected;
}

function routeTarget(returnKey: string | undefined): HTMLElement | null {
  if (returnKey) {
    const back = document.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(returnKey)}"]`);
    if (back) return back;
  }
  return document.querySelector<HTMLElement>('[data-route-focus]') ?? document.querySelector<HTMLElement>('main h1, h1');
}

/** Remembers which keyed element a click or a key press came from, and on which path. */
function noteActivation(event: Event) {
  const keyed = event.target instanceof Element ? event.target.closest<HTMLElement>('[data-focus-key]') : null;
  lastActivated = keyed?.dataset.focusKey ? { path: window.location.pathname, key: keyed.dataset.focusKey } : null;
}

export function useRouteFocus(): void {
  const { pathname } = useLocation();
  const first = useRef(true);
  const previousPath = useRef(pathname);
  useEffect(() => {
    document.addEventListener('click', noteActivation, true);
    document.addEventListener('keydown', noteActivation, true);
    return () => {
      document.removeEventListener('click', noteActivation, true);
      document.removeEventListener('keydown', noteActivation, true);
    };
  }, []);
  useEffect(() => {
    const from = previousPath.current;
    previousPath.current = pathname;
    if (lastActivated && lastActivated.path === from) {
      leftFrom.delete(from);
      leftFrom.set(from, lastActivated.key);
      if (leftFrom.size > MAX_REMEMBERED) leftFrom.delete(leftFrom.keys().next().value as string);
    }
    lastActivated = null;
    // The first page of a visit keeps the browser's own start (and the sign-in's field focus).
    if (first.current) {
      first.current = false;
      return;
    }
    const returnKey = leftFrom.get(pathname);
    const deadline = performance.now() + WAIT_MS;
    let frame = 0;
    const step = () => {
      if (!focusLost()) return;
      const target = routeTarget(returnKey);
      // Coming back, wait a little for the remembered element (the list loads) before the heading.
      const waitForReturn = returnKey && !target?.matches(`[data-focus-key="${CSS.escape(returnKey)}"]`) && performance.now() < deadline - WAIT_MS / 2;
      if (target && !waitForReturn) {
        if (!target.hasAttribute('tabindex') && target.tabIndex < 0) target.setAttribute('tabindex', '-1');
        target.focus({ preventScroll: false });
        return;
      }
      if (performance.now() < deadline) frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [pathname]);
}
