// Opening an image in the screen's editor, as React reads it: the open and its state (loading,
// ready or failed, the progress, the pixels the renderer gets, the restored-work notice, the slow
// switch) are the session's (src/app/editor-session/imageLoading.ts, around openImage.ts); this
// runs the open per image and reads what the stage draws. A viewer's editor never saves.
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { Image } from '../../../../contract/images';
import { ImageLoading } from '../../../editor-session/imageLoading';
import type { OpeningHooks } from '../../../editor-session/openImage';
import type { EditorSession } from '../../../editor-session/session';

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
  // One per screen, across its images (the previous image's pixels stay until the next one's are in).
  const [model] = useState(() => new ImageLoading(image.id));
  model.show(image.id);
  const { load, imageSource } = useSyncExternalStore(model.subscribe, model.getState);

  // Reload only when the image itself changes (or the role starts or stops allowing edits, or a
  // restore made another version current).
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => model.open(session, image, readOnly, opening), [model, image.id, session, readOnly, reopenToken]);
  useEffect(() => () => model.dispose(), [model]);

  const shown = model.view(image.id);
  // Keys wait for this image's document, not for its pixels to be drawn.
  session.documentReady = shown.documentIn;
  return {
    load,
    progress: model.progress,
    imageSource,
    onImageReady: model.imageReady,
    /** The document and its pixels are up. */
    ready: shown.ready,
    /** Another image is still on the canvas while this one opens: no loading overlay over it (yet). */
    keepPrevious: shown.keepPrevious,
    /** This image's document is still on its way. */
    documentLoading: shown.documentLoading,
    /** Work kept on this device was restored for this image (hidden while a version is looked at). */
    recovered: shown.recovered,
    keepRecovered: () => model.keepRecovered(),
    discardRecovered: () => model.discardRecovered(session, image),
  };
}
