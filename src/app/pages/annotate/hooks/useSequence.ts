// The image's place in the folder's sequence (the Data tab's order): previous and next, going to
// them, and loading them in the background once this image is up: their pixels and annotations
// (./preload), and their textures in the renderer (preloadFor), so going to one is instant.
import { useCallback, useEffect } from 'react';
import type { Image } from '../../../../contract/images';
import type { Editor } from '../../../../engine';
import { preloadFor } from '../../../../workers/render-client';
import { prefetchImage } from '../preload';

export function useSequence({ editor, image, sequence, orgId, projectId, ready, onNavigate }: { editor?: Editor; image: Image; sequence: Image[] | undefined; orgId: string; projectId: string; ready: boolean; onNavigate(image: Image): void }) {
  const index = sequence ? sequence.findIndex((i) => i.id === image.id) : -1;
  const previous = index > 0 ? sequence![index - 1]! : null;
  const next = index >= 0 && sequence && index < sequence.length - 1 ? sequence[index + 1]! : null;

  useEffect(() => {
    if (!ready) return;
    // Neighbours load in the background once this image is up.
    let live = true;
    const t = window.setTimeout(() => {
      for (const n of [next, previous]) {
        if (!n) continue;
        void prefetchImage(n, orgId, projectId).then((px) => {
          if (px && live && editor) preloadFor(editor, n.id, px.source, px);
        });
      }
    }, 300);
    return () => {
      live = false;
      window.clearTimeout(t);
    };
  }, [ready, next, previous, orgId, projectId, editor]);

  const goPrevious = useCallback(() => previous && onNavigate(previous), [previous, onNavigate]);
  const goNext = useCallback(() => next && onNavigate(next), [next, onNavigate]);
  return { index, previous, next, goPrevious, goNext };
}
