// The image open in the editor screen, as React reads it: its open (./useImageLoading, the
// session's openImage) and its live co-editing (./useLiveImage: changes saved elsewhere come into
// the document, the people on the image, their cursors). The two meet here: the open tells the
// live image the version it loaded, the live image asks for a reopen when its change log no longer
// reaches back, the document's arrival catches up with what was saved meanwhile, and our selection
// goes to the others once the document is in.
import { useEffect, useState } from 'react';
import type { Image } from '../../../../contract/images';
import type { EditorSession } from '../../../editor-session/session';
import { useViewSettings } from '../../../stores/viewSettings';
import { useImageLoading } from './useImageLoading';
import { useLiveImage, useSendSelection } from './useLiveImage';

export interface OpenImageOptions {
  session: EditorSession;
  image: Image;
  readOnly: boolean;
  /** Bumped by a restore (the session's History): the image is opened again. */
  reopenToken: number;
}

export function useOpenImage({ session, image, readOnly, reopenToken }: OpenImageOptions) {
  const { editor, link, saver, projectId, history } = session;
  const [liveReopen, setLiveReopen] = useState(0);
  const live = useLiveImage({ imageId: image.id, projectId, readOnly, link, saver, opening: history.opening, documentReady: () => session.documentReady, reopen: () => setLiveReopen((n) => n + 1) });
  const loading = useImageLoading({ session, image, readOnly, opening: live.liveOpening, reopenToken: reopenToken + liveReopen });
  const { load } = loading;
  const documentIn = load.status === 'ready' && load.imageId === image.id;
  const { resync } = live;
  useEffect(() => {
    if (documentIn) resync();
  }, [documentIn, resync]);
  useSendSelection(editor, documentIn, live.peers, live.sendSelection);
  /** The others' avatars and cursors are shown (a view setting). */
  const showPeers = useViewSettings((s) => s.collaborators);
  return { loading, live, documentIn, showPeers };
}
