// Whether a CSS media query matches now, kept current as the window changes (zoom included: 200%
// zoom halves the CSS width). useSyncExternalStore reads it during render, so the first paint
// is already right.
import { useSyncExternalStore } from 'react';

export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}

/** Below this width the sidebar folds to icons and opens as a drawer (issue 37, reflow at 320 px). */
export const NARROW_SCREEN = '(max-width: 767.98px)';
