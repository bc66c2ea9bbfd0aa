import { useEffect } from 'react';

/** Sets the browser tab title to '{title} · Vellum' while the screen is shown. */
export function useDocumentTitle(title: string | null | undefined) {
  useEffect(() => {
    document.title = title ? `${title} · Vellum` : 'Vellum';
  }, [title]);
}
