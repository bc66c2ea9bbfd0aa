// What the Data tab's grid shows: 'Back to parent' (in a folder), the folder's subfolders by name,
// then its images as loaded (a search shows only the images it found, from every folder); thumbnails for what is on screen; and, once images are shown, the
// editor's code fetched in an idle moment (opening one is likely next). The ids of the image tiles
// on screen (the rows the grid renders) are what the tab watches the presence of (tilePeople.tsx).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Image } from '../../../../contract/images';
import { ROOT_PATH, type FolderNode } from '../../../../contract/folders';
import { AnnotatePage } from '../../../lazyRoutes';
import { findFolder } from './folders';
import { requestThumbnails } from './thumbnails';

export type Item = { kind: 'parent' } | { kind: 'folder'; folder: FolderNode } | { kind: 'image'; image: Image; index: number };

export function useGridItems({
  orgId,
  folderPath,
  searching,
  tree,
  hiddenFolders,
  images,
}: {
  orgId: string;
  folderPath: string;
  searching: boolean;
  tree: readonly FolderNode[];
  hiddenFolders: ReadonlySet<string>;
  images: Image[];
}) {
  const current = folderPath === ROOT_PATH ? null : findFolder(tree, folderPath);
  // Folders stay visible under a status filter so the tree can still be browsed.
  const childFolders = (folderPath === ROOT_PATH ? tree : (current?.children ?? []))
    .filter((f) => !hiddenFolders.has(f.id))
    .slice()
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));

  const items = useMemo<Item[]>(() => {
    const out: Item[] = [];
    if (!searching) {
      if (folderPath !== ROOT_PATH) out.push({ kind: 'parent' });
      for (const folder of childFolders) out.push({ kind: 'folder', folder });
    }
    images.forEach((image, index) => out.push({ kind: 'image', image, index }));
    return out;
  }, [folderPath, searching, childFolders, images]);

  // Thumbnails for what is on screen (batched and paced in requestThumbnails).
  const itemsRef = useRef(items);
  useEffect(() => {
    itemsRef.current = items;
  }, [items]);
  const [range, setRange] = useState<[number, number]>([0, 0]);
  const onRange = useCallback(
    (start: number, end: number) => {
      const visible = itemsRef.current.slice(start, end).flatMap((it) => (it.kind === 'image' ? [it.image] : []));
      void requestThumbnails(orgId, visible);
      setRange((r) => (r[0] === start && r[1] === end ? r : [start, end]));
    },
    [orgId],
  );
  const visibleImageIds = useMemo(() => items.slice(range[0], range[1]).flatMap((it) => (it.kind === 'image' ? [it.image.id] : [])), [items, range]);
  useEffect(() => {
    void requestThumbnails(orgId, images.slice(0, 60));
  }, [orgId, images]);

  const hasImages = images.length > 0;
  useEffect(() => {
    if (!hasImages) return;
    const idle = window.requestIdleCallback?.(() => AnnotatePage.preload(), { timeout: 5000 });
    return () => {
      if (idle !== undefined) window.cancelIdleCallback(idle);
    };
  }, [hasImages]);

  return { items, childFolders, onRange, visibleImageIds };
}
