// The image's place in its sequence: the images of the Data view it was opened from (issue 29: the
// editor URL's query), in that view's order: its folder (or the whole project during a name search),
// its stage and assignee filters, its sort. Previous and next, going to them, and loading them in
// the background once this image is up: their pixels and annotations (./preload), and their
// textures in the renderer (preloadFor), so going to one is instant.
import { useCallback, useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { MAX_PAGE_SIZE, type Image } from '../../../../contract/images';
import { api } from '../../../api/client';
import { annotationFilterParams, looksInEveryFolder, type DataQuery } from '../../../lib/links';
import type { EditorSession } from '../../../editor-session/session';
import { preloadFor } from '../../../../workers/render-client';
import { prefetchImage } from '../../../api/annotations/preload';

export function useSequence({ session, image, sequence, orgId, projectId, ready, onNavigate }: { session: EditorSession; image: Image; sequence: Image[] | undefined; orgId: string; projectId: string; ready: boolean; onNavigate(image: Image): void }) {
  const index = sequence ? sequence.findIndex((i) => i.id === image.id) : -1;
  const previous = index > 0 ? sequence![index - 1]! : null;
  const next = index >= 0 && sequence && index < sequence.length - 1 ? sequence[index + 1]! : null;
  const { editor, auto } = session;
  // Auto-Annotate prepares the next image's embedding ahead.
  const nextName = next?.filename ?? null;
  useEffect(() => auto.setNext(nextName), [auto, nextName]);

  useEffect(() => {
    if (!ready) return;
    // Neighbours load in the background once this image is up.
    let live = true;
    const t = window.setTimeout(() => {
      for (const n of [next, previous]) {
        if (!n) continue;
        void prefetchImage(n, orgId, projectId).then((px) => {
          if (px && live) preloadFor(editor, n.id, px.source, px);
        });
      }
    }, 300);
    return () => {
      live = false;
      window.clearTimeout(t);
    };
  }, [ready, next, previous, orgId, projectId, editor]);

  const goPrevious = useCallback(() => previous && onNavigate(previous), [previous, onNavigate]);
  const goNext = useCallback(() => next && onNavigate(next), [next, onNavigate]);
  return { index, previous, next, goPrevious, goNext };
}

/** The editor's copy of an image (the stage picker and saves update it under ['editor-image', projectId]). */
export const editorImageKey = (projectId: string | undefined, imageId: string) => ['editor-image', projectId, imageId] as const;

/**
 * The sequence for `image` in the view `query` (its folderPath is the image's own folder unless
 * it looks in every folder: a search, an assignee or an annotation filter). Undefined while it loads, and when the image is not in it (filtered out since it was
 * opened, or a link with another view's query): the image is then shown alone.
 */
export function useSequenceImages({ projectId, orgId, image, query }: { projectId: string | undefined; orgId: string; image: Image | null; query: DataQuery }): Image[] | undefined {
  const everyFolder = looksInEveryFolder(query);
  const sequenceQuery = useQuery({
    queryKey: ['editor-sequence', projectId, everyFolder ? null : query.folderPath, query.search, query.status, query.assignee, annotationFilterParams(query.annotations), query.sort.field, query.sort.order],
    enabled: Boolean(projectId && orgId && image),
    staleTime: 60_000,
    queryFn: async () =>
      (
        await api.listImages(projectId!, {
          org_id: orgId,
          folder_path: everyFolder ? undefined : query.folderPath,
          search: query.search || undefined,
          status: query.status ?? undefined,
          assignee: query.assignee ?? undefined,
          ...annotationFilterParams(query.annotations),
          page: 1,
          limit: MAX_PAGE_SIZE,
          sort_by: query.sort.field,
          sort_order: query.sort.order,
          is_archived: 'false',
        })
      ).images,
  });
  const list = sequenceQuery.data;
  return list && image && list.some((i) => i.id === image.id) ? list : undefined;
}
