// Live co-editing in the editor screen (issue 20): the open image is watched through the tab's
// live client (src/app/lib/live). Another person's saved change goes into the live document
// through the save link (the save manager's copy of the server document moves on, then
// Editor.applyRemote: selection, a drag in progress and undo of the user's own edits stay), never
// a reload. This tab's own saves are told apart by version: the manager already holds them
// ('known'), or a save is in flight and the change waits for its answer ('busy'). A view-only
// editor has no save slot: it keeps the version it loaded and applies changes directly. When the
// change log no longer reaches back, the image is opened again.
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { LivePeer } from '../../../../contract/live';
import { getLiveClient, type ApplyResult, type LiveChange, type LiveClient } from '../../../lib/live';
import type { EditorSaveLink, SaveManager } from '../save';
import type { HistoryOpening } from './useHistoryView';

export interface LiveImageOptions {
  imageId: string;
  projectId: string;
  readOnly: boolean;
  link: EditorSaveLink;
  saver: SaveManager;
  opening: HistoryOpening;
  /** This image's document is in the editor (set as the screen renders). */
  documentReady: RefObject<boolean>;
  /** Opens the image again (the whole document: the change log no longer reaches back). */
  reopen: () => void;
  client?: LiveClient;
}

export function useLiveImage({ imageId, projectId, readOnly, link, saver, opening, documentReady, reopen, client }: LiveImageOptions) {
  const live = client ?? getLiveClient();
  const [peers, setPeers] = useState<{ imageId: string; list: LivePeer[] }>({ imageId, list: [] });
  // The version a view-only editor loaded (and moved on with the changes it applied).
  const viewVersion = useRef<{ imageId: string; version: number } | null>(null);

  // The open path reports the version it loaded.
  const liveOpening = useMemo<HistoryOpening>(
    () => ({
      ...opening,
      loadedVersion(id, version) {
        opening.loadedVersion(id, version);
        viewVersion.current = { imageId: id, version };
      },
    }),
    [opening],
  );

  const reopenRef = useRef(reopen);
  reopenRef.current = reopen;

  const heldVersion = useCallback((): number | null => {
    if (!documentReady.current) return null;
    if (!readOnly) return link.image?.imageId === imageId ? saver.version(imageId) : null;
    return viewVersion.current?.imageId === imageId ? viewVersion.current.version : null;
  }, [readOnly, link, saver, imageId, documentReady]);

  const apply = useCallback(
    (change: LiveChange): ApplyResult => {
      if (!readOnly) return link.applyRemoteChange(imageId, change).kind;
      const held = heldVersion();
      if (held === null) return 'closed';
      if (change.version <= held) return 'known';
      if (change.base_version !== held) return 'gap';
      link.applyToEditor(change.upserts, change.removed_ids, new Set());
      viewVersion.current = { imageId, version: change.version };
      return 'applied';
    },
    [readOnly, link, imageId, heldVersion],
  );

  useEffect(
    () =>
      live.watch(imageId, projectId, {
        version: heldVersion,
        apply,
        reload: () => reopenRef.current(),
        onPeers: (list) => setPeers({ imageId, list }),
      }),
    [live, imageId, projectId, heldVersion, apply],
  );

  return {
    liveOpening,
    /** Call when the document arrived (opened, reopened): catches up with what was saved meanwhile. */
    resync: useCallback(() => live.resync(imageId), [live, imageId]),
    /** The people on this image (the user included), as the server last said. */
    peers: peers.imageId === imageId ? peers.list : [],
    userId: live.userId,
  };
}
