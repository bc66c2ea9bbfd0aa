// The image's place in the folder's sequence (the Data tab's order): previous and next, going to
// them, and loading them in the background once this image is up.
import { useCallback, useEffect } from 'react';
import type { Image } from '../../../../contract/images';
import { prefetchImage } from '../preload';

export function useSequence({ image, sequence, orgId, projectId, ready, onNavigate }: { image: Image; sequence: Image[] | undefined; orgId: string; projectId: string; ready: boolean; onNavigate(image: Image): void }) {
  const index = sequence ? sequence.findIndex((i) => i.id === image.id) : -1;
  const previous = index > 0 ? sequence![index - 1]! : null;
  const next = index >= 0 && sequence && index < sequence.length - 1 ? sequence[index + 1]! : null;

  useEffect(() => {
    if (!ready) return;
    // Neighbours load in the background once this image is up.
    const t = window.setTimeout(() => {
      if (next) prefetchImage(next, orgId, projectId);
      if (previous) prefetchImage(previous, orgId, projectId);
    }, 300);
    return () => window.clearTimeout(t);
  }, [ready, next, previous, orgId, projectId]);

  const goPrevious = useCallback(() => previous && onNavigate(previous), [previous, onNavigate]);
  const goNext = useCallback(() => next && onNavigate(next), [next, onNavigate]);
  return { index, previous, next, goPrevious, goNext };
}
