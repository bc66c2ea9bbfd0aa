// A virtualised tile grid: only the rows near the viewport are in the DOM, so a folder of 100k
// images scrolls like one of 100. It scrolls with the page's main scroll area.
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import styles from './DataTab.module.css';

const MIN_TILE = 188;
const GAP = 16;
const INFO_HEIGHT = 64;

function scrollParent(el: HTMLElement | null): HTMLElement | null {
  for (let p = el?.parentElement ?? null; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowY;
    if (o === 'auto' || o === 'scroll') return p;
  }
  return document.scrollingElement as HTMLElement | null;
}

export interface VirtualGridProps<T> {
  items: readonly T[];
  itemKey(item: T): string;
  renderItem(item: T, index: number): ReactNode;
  /** Called when the last rows come near the viewport. */
  onNearEnd?(): void;
  /** The indexes currently rendered (for thumbnail requests). */
  onRange?(start: number, end: number): void;
  label: string;
}

export function VirtualGrid<T>({ items, itemKey, renderItem, onNearEnd, onRange, label }: VirtualGridProps<T>) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollEl, setScrollEl] = useState<HTMLElement | null>(null);
  const [width, setWidth] = useState(0);
  const [margin, setMargin] = useState(0);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const parent = scrollParent(el);
    setScrollEl(parent);
    const measure = () => {
      setWidth(el.clientWidth);
      if (parent) setMargin(Math.round(el.getBoundingClientRect().top - parent.getBoundingClientRect().top + parent.scrollTop));
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    if (parent?.firstElementChild) ro.observe(parent.firstElementChild);
    return () => ro.disconnect();
  }, []);

  const cols = Math.max(1, Math.floor((width + GAP) / (MIN_TILE + GAP)));
  const tile = width ? (width - GAP * (cols - 1)) / cols : MIN_TILE;
  const rowHeight = Math.round(tile * 0.75) + INFO_HEIGHT + GAP;
  const rows = Math.ceil(items.length / cols);

  const virtualizer = useVirtualizer({
    count: rows,
    getScrollElement: () => scrollEl,
    estimateSize: () => rowHeight,
    overscan: 3,
    scrollMargin: margin,
  });
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer]);

  const virtualRows = virtualizer.getVirtualItems();
  const first = virtualRows[0]?.index ?? 0;
  const last = virtualRows[virtualRows.length - 1]?.index ?? -1;
  useEffect(() => {
    if (last < 0) return;
    onRange?.(first * cols, Math.min(items.length, (last + 1) * cols));
    if (last >= rows - 3) onNearEnd?.();
  }, [first, last, cols, rows, items.length, onNearEnd, onRange]);

  return (
    <div ref={ref} className={styles.gridWrap} style={{ height: rows ? virtualizer.getTotalSize() - GAP : 0 }} role="list" aria-label={label}>
      {virtualRows.map((row) => (
        <div
          key={row.key}
          className={styles.gridRow}
          style={{ transform: `translateY(${row.start - margin}px)`, gridTemplateColumns: `repeat(${cols}, minmax(0, 1fr))`, height: rowHeight - GAP }}
        >
          {items.slice(row.index * cols, row.index * cols + cols).map((item, j) => (
            <div key={itemKey(item)} role="listitem" className={styles.cell}>
              {renderItem(item, row.index * cols + j)}
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}
