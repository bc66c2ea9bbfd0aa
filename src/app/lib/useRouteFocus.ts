// Where the keyboard goes after a route change (issue 37, WCAG 2.4.3): a single-page app keeps
// the old focus on a link that has left the page, so focus fell to <body> and Tab started again
// from the top. After a change of path, once the new page has rendered its target, focus goes to
// the element marked `data-route-focus` (a page's own choice: the tile the person came back to),
// else to the page's heading. It never takes focus from an element the person or the page has
// focused meanwhile, nor from a control that stayed on the page (a tab link): only a focus lost to
// <body> is moved. A change of query string alone (filters in the URL) moves nothing.
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';

/** How long a page may take to render its heading (a first load shows skeletons). */
const WAIT_MS = 5000;

function focusLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body || !active.isConnected;
}

function routeTarget(): HTMLElement | null {
  return document.querySelector<HTMLElement>('[data-route-focus]') ?? document.querySelector<HTMLElement>('main h1, h1');
}

export function useRouteFocus(): void {
  const { pathname } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    // The first page of a visit keeps the browser's own start (and the sign-in's field focus).
    if (first.current) {
      first.current = false;
      return;
    }
    const deadline = performance.now() + WAIT_MS;
    let frame = 0;
    const step = () => {
      if (!focusLost()) return;
      const target = routeTarget();
      if (target) {
        if (!target.hasAttribute('tabindex') && target.tabIndex < 0) target.setAttribute('tabindex', '-1');
        target.focus({ preventScroll: true });
        return;
      }
      if (performance.now() < deadline) frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [pathname]);
}
