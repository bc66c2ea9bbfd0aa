// The image open in the editor screen, as React reads it: its open (./useImageLoading, the
// session's ImageLoading) and its live co-editing (./useLiveImage) joined by the session's
// LiveOpenImage (src/app/editor-session/liveOpen.ts: the version loaded told to the live image,
// its reopen, the catch-up when the document arrives, our selection sent), made per image here.
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import type { Image } from '../../../../contract/images';
import { LiveOpenImage } from '../../../editor-session/liveOpen';
import type { EditorSession } from '../../../editor-session/session';
import { useViewSettings } from '../../../stores/viewSettings';
import { useImageLoading } from './useImageLoading';
import { useLiveImage } from './useLiveImage';

export interface OpenImageOptions {
  session: EditorSession;
  image: Image;
  readOnly: boolean;
  /** Bumped by a restore (the session's History): the image is opened again. */
  reopenToken: number;
}

export function useOpenImage({ session, image, readOnly, reopenToken }: OpenImageOptions) {
  const open = useMemo(() => new LiveOpenImage(session, image.id, readOnly), [session, image.id, readOnly]);
  useEffect(() => open.start(), [open]);
  const live = useLiveImage(open);
  const liveReopens = useSyncExternalStore(open.subscribeReopen, open.reopenCount);
  const loading = useImageLoading({ session, image, readOnly, opening: open.opening, reopenToken: reopenToken + liveReopens });
  const { load } = loading;
  const documentIn = load.status === 'ready' && load.imageId === image.id;
  useEffect(() => open.setDocumentIn(documentIn), [open, documentIn]);
  /** The others' avatars and cursors are shown (a view setting). */
  const showPeers = useViewSettings((s) => s.collaborators);
  return { loading, live, documentIn, showPeers };
}
