import { useEffect, useState } from 'react';

/** Spec section 9: page size from the window, cards 320x240, at least 12. */
export const CARD_WIDTH = 320;
export const CARD_HEIGHT = 240;
export const MIN_PAGE_SIZE = 12;

export function pageSizeFor(width: number, height: number): number {
  const cols = Math.max(1, Math.floor(width / CARD_WIDTH));
  const rows = Math.max(1, Math.ceil(height / CARD_HEIGHT));
  return Math.max(MIN_PAGE_SIZE, cols * rows);
}

export function usePageSize(): number {
  const [size, setSize] = useState(() => pageSizeFor(window.innerWidth, window.innerHeight));
  useEffect(() => {
    let frame = 0;
    const onResize = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setSize(pageSizeFor(window.innerWidth, window.innerHeight)));
    };
    window.addEventListener('resize', onResize);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('resize', onResize);
    };
  }, []);
  return size;
}
