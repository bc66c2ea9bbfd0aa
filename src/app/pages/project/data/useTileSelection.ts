// Selecting images in the Data tab's grid (spec section 4): a click toggles (Shift extends from the
// anchor, Ctrl/Cmd adds), a click with nothing selected opens the image in the editor (its URL
// carries the view's query), Ctrl/Cmd+A selects every loaded image and Escape clears. The selection itself lives in useDataView.
import { useCallback, useEffect, type MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Image } from '../../../../contract/images';
import { dataQueryString, imagePath } from '../../../lib/links';
import { useDataView } from '../../../stores/dataView';

export function useTileSelection(images: Image[]) {
  const navigate = useNavigate();
  const view = useDataView.getState;

  const toggle = useCallback(
    (image: Image, index: number, e: MouseEvent | null) => {
      const sel = new Set(view().selected);
      if (e?.shiftKey && view().anchor) {
        const from = images.findIndex((i) => i.id === view().anchor);
        if (from >= 0) {
          // Walk from the anchor so it stays the first selected (a bulk 'Next stage' follows it).
          const next = e.metaKey || e.ctrlKey ? sel : new Set<string>();
          const step = from <= index ? 1 : -1;
          for (let i = from; i !== index + step; i += step) next.add(images[i].id);
          view().setSelection(next);
          return;
        }
      }
      if (sel.has(image.id)) sel.delete(image.id);
      else sel.add(image.id);
      view().setSelection(sel, image.id);
    },
    [images, view],
  );

  const activate = useCallback(
    (image: Image, index: number, e: MouseEvent | null) => {
      if (e && (e.shiftKey || e.metaKey || e.ctrlKey || view().selected.size > 0)) {
        toggle(image, index, e);
        return;
      }
      // The editor's link carries the view's query: previous / next and Back follow this view.
      navigate(imagePath(image.project_id, image.id, dataQueryString(view())));
    },
    [navigate, toggle, view],
  );

  useSelectionKeys(images, true);

  return { toggle, activate };
}

/** Ctrl/Cmd+A selects every loaded image and Escape clears, outside fields, dialogs and menus; `enabled` false: neither. */
export function useSelectionKeys(images: Image[], enabled: boolean) {
  const view = useDataView.getState;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.closest('input, textarea, select, [contenteditable="true"]') || t.closest('[role="dialog"], [role="menu"]'))) return;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') {
        e.preventDefault();
        view().setSelection(images.map((i) => i.id), images[0]?.id ?? null);
      } else if (e.key === 'Escape' && view().selected.size) {
        view().clearSelection();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [images, view, enabled]);
}
