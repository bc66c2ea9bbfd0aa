// Live co-editing in the editor screen (issue 20), as React reads it: the open image's LiveImage
// (src/app/sync/live/liveImage.ts: others' changes into the document through the save link, the
// people, their cursors and selections, ours sent), made and joined to the open by the session's
// LiveOpenImage (src/app/editor-session/liveOpen.ts).
import { useSyncExternalStore } from 'react';
import type { LivePeer } from '../../../../contract/live';
import type { LiveOpenImage } from '../../../editor-session/liveOpen';

export function useLiveImage(open: LiveOpenImage) {
  const { image } = open;
  const state = useSyncExternalStore(image.subscribe, image.getState);
  return {
    /** The people on this image (the user included), as the server last said. */
    peers: state.peers as LivePeer[],
    userId: open.userId,
    /** The others' cursors and selections on this image. */
    presence: state.presence,
    /** The clock the cursors' fading is drawn at (moves while any cursor is shown). */
    now: state.now,
    sendCursor: image.sendCursor,
  };
}
