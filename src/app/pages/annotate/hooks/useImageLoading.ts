// Opening an image in the screen's editor, as React draws it: the open itself is the session's
// (src/app/editor-session/openImage.ts: pixels and document in slices, work this device kept
// loaded instead); this keeps the stage's state, the progress bar, the pixels the renderer gets
// and the restored-work notice (its Discard is the session's). A viewer's editor never saves.
// Going to another image keeps the screen: its document replaces the previous one in the same
// Editor (the previous one's undo history is kept for the session, see Editor's historyKey), the
// renderer swaps its image, and the previous image stays on the canvas until the next one's first
// frame (no 'Loading image...' unless that takes longer than SLOW_SWITCH_MS).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Image } from '../../../../contract/images';
import type { ImageSourceInput } from '../../../../workers/render-client';
import { serverMessage } from '../../../api/client';
import { openImage, type OpeningHooks } from '../../../editor-session/openImage';
import type { EditorSession } from '../../../editor-session/session';
import { progressStore } from '../LoadingProgress';

/** A switch to another image taking longer than this shows the stage's loading overlay. */
const SLOW_SWITCH_MS = 1200;

export type LoadState = { imageId: string; status: 'loading' } | { imageId: string; status: 'ready' } | { imageId: string; status: 'error'; message: string };

export interface ImageLoadingOptions {
  session: EditorSession;
  image: Image;
  readOnly: boolean;
  /** The History's side of an open (the session's), with the live image's. */
  opening: OpeningHooks;
  /** Bumped by a restore: the image is opened again. */
  reopenToken: number;
}

export function useImageLoading({ session, image, readOnly, opening, reopenToken }: ImageLoadingOptions) {
  const progress = useMemo(progressStore, []);
  const shownImage = useRef(image.id);
  shownImage.current = image.id;
  const [load, setLoad] = useState<LoadState>({ imageId: image.id, status: 'loading' });
  const [imageSource, setImageSource] = useState<ImageSourceInput | undefined>(undefined);
  // The image id whose pixels the renderer has open (the overlay stays until then).
  const [drawnImage, setDrawnImage] = useState<string | null>(null);
  const sourceOwner = useRef<string | null>(null);
  const [recovered, setRecovered] = useState<{ imageId: string; changes: number } | null>(null);

  // The open itself is the session's (src/app/editor-session/openImage.ts); this keeps what the
  // screen draws from it.
  useEffect(() => {
    setLoad({ imageId: image.id, status: 'loading' });
    setRecovered(null);
    return openImage(session, {
        image,
        readOnly,
        opening,
        shownImage: () => shownImage.current,
        progress,
        onReady: (source) => {
          sourceOwner.current = image.id;
          setImageSource((prev) => {
            // The same pixels again (reopened image): the renderer already has them.
            if (prev === source) setDrawnImage(image.id);
            return source;
          });
          setLoad({ imageId: image.id, status: 'ready' });
        },
        onRecovered: (changes) => setRecovered({ imageId: image.id, changes }),
        onError: (err) => setLoad({ imageId: image.id, status: 'error', message: loadErrorMessage(err) }),
      });
    // Reload only when the image itself changes (or the role starts or stops allowing edits, or a
    // restore made another version current).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [image.id, session, readOnly, reopenToken]);

  const onImageReady = useCallback((err: Error | null) => {
    if (err) {
      console.error('Failed to open the image pixels', err);
      setLoad((l) => ({ imageId: l.imageId, status: 'error', message: 'The image file could not be opened. It may be damaged or in a format this browser cannot read.' }));
      return;
    }
    setDrawnImage(sourceOwner.current);
  }, []);

  const discardRecovered = async () => {
    if (recovered) await session.discardRecovered(image, () => setRecovered(null));
  };

  // Keys wait for this image's document, not for its pixels to be drawn.
  session.documentReady = load.status === 'ready' && load.imageId === image.id;
  const ready = load.status === 'ready' && load.imageId === image.id && drawnImage === image.id;
  // A switch that takes long shows the overlay after all.
  const [slow, setSlow] = useState<string | null>(null);
  useEffect(() => {
    if (ready) return;
    const t = window.setTimeout(() => setSlow(image.id), SLOW_SWITCH_MS);
    return () => window.clearTimeout(t);
  }, [image.id, ready]);
  const failed = load.status === 'error' && load.imageId === image.id;
  return {
    load,
    progress,
    imageSource,
    onImageReady,
    /** The document and its pixels are up. */
    ready,
    /** Another image is still on the canvas while this one opens: no loading overlay over it (yet). */
    keepPrevious: !ready && !failed && drawnImage !== null && drawnImage !== image.id && slow !== image.id,
    /** This image's document is still on its way. */
    documentLoading: load.imageId !== image.id || load.status === 'loading',
    /** Work kept on this device was restored for this image (hidden while a version is looked at). */
    recovered: recovered && recovered.imageId === image.id ? recovered : null,
    keepRecovered: () => setRecovered(null),
    discardRecovered,
  };
}

function loadErrorMessage(err: unknown): string {
  if (err instanceof Error && err.name === 'ZodError') return 'The annotations saved for this image are not valid, so the editor cannot open them.';
  if (err instanceof SyntaxError) return 'The annotations of this image could not be read.';
  return err instanceof Error && !('status' in err) ? err.message : serverMessage(err, 'The image could not be loaded.');
}
