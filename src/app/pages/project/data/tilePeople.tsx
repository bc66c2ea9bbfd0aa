// Who has each image open in the editor, on the Data tab's tiles (live co-editing, issue 20): the
// tab watches the presence of the image tiles the grid renders through the tab's one live socket
// (LiveClient.watchPresence: the viewer is nobody's peer and hears no changes), and each tile shows
// the others on its image, at most three and "+N". Settings > Show collaborators off (the
// editor's setting, kept in the browser) shows nobody and watches nothing.
import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { PeerAvatars } from '../../../components/PeerAvatars';
import { EMPTY_WATCHED, getLiveClient, watchedFrom, withPresence, type LiveClient, type LivePresenceWatch, type WatchedPeople } from '../../../lib/live';
import { useViewSettings } from '../../annotate/viewSettings';

/** Avatars on a tile before the rest are counted as "+N". */
const MAX_ON_TILE = 3;

const useTilePeople = create<{ byImage: WatchedPeople; selfId: string | null }>(() => ({ byImage: EMPTY_WATCHED, selfId: null }));

/** Watches the presence of `imageIds` (the tiles on screen) while the Data tab is open and Show collaborators is on. */
export function useWatchTiles(projectId: string, imageIds: readonly string[], client?: LiveClient): void {
  const live = client ?? getLiveClient();
  const enabled = useViewSettings((s) => s.collaborators);
  const watch = useRef<LivePresenceWatch | null>(null);
  useEffect(() => {
    if (!enabled) return;
    const set = (byImage: (before: WatchedPeople) => WatchedPeople) => useTilePeople.setState((s) => ({ byImage: byImage(s.byImage), selfId: live.userId }));
    const w = live.watchPresence({
      onWatching: (images) => set((before) => watchedFrom(images, before)),
      onPresence: (imageId, peers) => set((before) => withPresence(before, imageId, peers)),
      onDisconnected: () => set(() => EMPTY_WATCHED),
    });
    watch.current = w;
    return () => {
      w.stop();
      watch.current = null;
      useTilePeople.setState({ byImage: EMPTY_WATCHED });
    };
  }, [live, enabled]);
  const key = imageIds.join(',');
  useEffect(() => {
    watch.current?.set(projectId, key ? key.split(',') : []);
  }, [projectId, key, enabled]);
}

/** The others on the image, over the tile's thumbnail (nothing when nobody else is there). */
export function TilePeople({ imageId, filename }: { imageId: string; filename: string }) {
  const peers = useTilePeople((s) => s.byImage.get(imageId));
  const selfId = useTilePeople((s) => s.selfId);
  if (!peers) return null;
  return <PeerAvatars peers={peers} selfId={selfId} max={MAX_ON_TILE} size="sm" showSelf={false} label={`People on ${filename}`} tooltipSide="top" />;
}
