// Who has each image open in the editor, on the Data tab's tiles (live co-editing, issue 20): the
// tab watches the presence of the image tiles the grid renders through the tab's one live socket
// (LiveClient.watchPresence: the viewer is nobody's peer and hears no changes), and each tile shows
// the others on its image, at most three and "+N". Settings > Show collaborators off (the
// editor's setting, kept in the browser) shows nobody and watches nothing.
// Who the image is assigned to and its open issues (issue 29) are on the tile too (TileWork), and
// how many annotators an overlapped image goes to (issue 36 §3).
import { useQuery } from '@tanstack/react-query';
import { MessageSquareWarning, Users } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import type { Image } from '../../../../contract/images';
import type { Member } from '../../../../contract/teams';
import { teamApi } from '../../../api/client';
import { Avatar } from '../../../components/Avatar';
import { PeerAvatars } from '../../../components/PeerAvatars';
import { Tooltip } from '../../../components/Tooltip';
import { useSession } from '../../../stores/session';
import { EMPTY_WATCHED, getLiveClient, watchedFrom, withPresence, type LiveClient, type LivePresenceWatch, type WatchedPeople } from '../../../sync/live';
import { useViewSettings } from '../../../stores/viewSettings';
import styles from './DataTab.module.css';

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

/** The organization's members (the Members settings' query: one request for every tile and dialog). */
export function useOrgMembers(orgId: string | undefined) {
  return useQuery({ queryKey: ['members', orgId], queryFn: async () => (await teamApi.listMembers(orgId!)).members, enabled: Boolean(orgId), staleTime: 60_000 });
}

/** A member as people read them: the full name, else the e-mail; 'Former member' once gone. */
export function memberName(members: readonly Member[] | undefined, userId: string): string {
  const m = members?.find((x) => x.user_id === userId);
  return m ? m.full_name || m.email : members ? 'Former member' : 'A member';
}

/** The assignee's avatar, the open-issue count and an overlapped image's annotators, beside the tile's file name (nothing when none). */
export function TileWork({ image }: { image: Pick<Image, 'assignee_id' | 'open_issues' | 'filename'> & Partial<Pick<Image, 'overlap'>> }) {
  const orgId = useSession((s) => s.currentOrganization?.id);
  const members = useOrgMembers(image.assignee_id ? orgId : undefined);
  const overlap = image.overlap ?? 1;
  if (!image.assignee_id && !image.open_issues && overlap <= 1) return null;
  const name = image.assignee_id ? memberName(members.data, image.assignee_id) : null;
  return (
    <span className={styles.work}>
      {overlap > 1 ? (
        <Tooltip content={`${overlap} annotators, each on a layer of their own; a reviewer merges them`}>
          <span className={styles.overlapCount} aria-label={`${overlap} annotators`} data-testid="tile-overlap">
            <Users aria-hidden="true" />
            {overlap}
          </span>
        </Tooltip>
      ) : null}
      {image.open_issues ? (
        <span className={styles.issueCount} aria-label={`${image.open_issues} open issue${image.open_issues === 1 ? '' : 's'}`} title={`${image.open_issues} open issue${image.open_issues === 1 ? '' : 's'}`} data-testid="tile-issues">
          <MessageSquareWarning aria-hidden="true" />
          {image.open_issues.toLocaleString()}
        </span>
      ) : null}
      {name ? (
        <Tooltip content={`Assigned to ${name}`}>
          <span className={styles.assignee} aria-label={`Assigned to ${name}`} data-testid="tile-assignee">
            <Avatar name={name} className={styles.assigneeAvatar} />
          </span>
        </Tooltip>
      ) : null}
    </span>
  );
}
