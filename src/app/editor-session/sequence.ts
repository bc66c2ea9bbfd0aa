// The image's place in its sequence, without React: the images of the Data view it was opened from
// (issue 29: the editor URL's query), in that view's order: its folder (or every folder during a
// name search, an assignee or an annotation filter), its stage, assignee and annotation filters,
// its sort. What is asked of the server for that list, previous and next in it, and loading them in
// the background once this image is up: their pixels and annotations (api/annotations/preload)
// and their textures in the renderer, so going to one is instant. The screen reads it
// (pages/annotate/hooks/useSequence.ts).
import { MAX_PAGE_SIZE, type Image } from '../../contract/images';
import type { Editor } from '../../engine';
import type { ImageSourceInput } from '../../workers/render-client';
import type { ListImagesParams } from '../api/client';
import { prefetchImage, type LoadedPixels } from '../api/annotations/preload';
import { annotationFilterParams, looksInEveryFolder, pendingFilterParams, type DataQuery } from '../lib/links';

/** How long after the image is up its neighbours start loading. */
export const PREFETCH_DELAY_MS = 300;

/** The list request of the view `query` (its folderPath is the image's own folder unless it looks in every folder). */
export function sequenceRequest(query: DataQuery, orgId: string): { key: readonly unknown[]; params: ListImagesParams } {
  const everyFolder = looksInEveryFolder(query);
  const annotations = { ...annotationFilterParams(query.annotations), ...pendingFilterParams(query.annotations) };
  return {
    key: [everyFolder ? null : query.folderPath, query.search, query.status, query.assignee, annotations, query.sort.field, query.sort.order],
    params: {
      org_id: orgId,
      folder_path: everyFolder ? undefined : query.folderPath,
      search: query.search || undefined,
      status: query.status ?? undefined,
      assignee: query.assignee ?? undefined,
      ...annotations,
      page: 1,
      limit: MAX_PAGE_SIZE,
      sort_by: query.sort.field,
      sort_order: query.sort.order,
      is_archived: 'false',
    },
  };
}

/** The sequence `image` is shown in: the view's list, unless the image is not in it (then it is shown alone). */
export function sequenceOf(list: Image[] | undefined, image: Pick<Image, 'id'> | null): Image[] | undefined {
  return list && image && list.some((i) => i.id === image.id) ? list : undefined;
}

export interface SequencePlace {
  /** The image's index in the sequence (-1: not in it, or the sequence is still loading). */
  index: number;
  previous: Image | null;
  next: Image | null;
}

/** Where `imageId` stands in `sequence`, and its neighbours. */
export function sequencePlace(sequence: readonly Image[] | undefined, imageId: string): SequencePlace {
  const index = sequence ? sequence.findIndex((i) => i.id === imageId) : -1;
  const previous = index > 0 ? sequence![index - 1]! : null;
  const next = index >= 0 && sequence && index < sequence.length - 1 ? sequence[index + 1]! : null;
  return { index, previous, next };
}

export interface PrefetchOptions {
  /** The editor whose renderer opens the neighbours' textures ahead. */
  editor: Editor;
  orgId: string;
  projectId: string;
  /** The next image first, then the previous one. */
  neighbours: readonly (Image | null)[];
  /** Opens pixels ahead in the renderer drawing `editor` (render-client's preloadFor). */
  preload(editor: Editor, key: string, source: ImageSourceInput, size: { width: number; height: number }): void;
  /** A neighbour's pixels and annotations (preload.ts's prefetchImage by default). */
  prefetch?(image: Image, orgId: string, projectId: string): Promise<LoadedPixels | null>;
  timers?: { setTimer(fn: () => void, ms: number): unknown; clearTimer(handle: unknown): void };
}

const pageTimers = {
  setTimer: (fn: () => void, ms: number): unknown => setTimeout(fn, ms),
  clearTimer: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Loads the neighbours in the background, PREFETCH_DELAY_MS from now; returns the function that stops it. */
export function prefetchNeighbours(opts: PrefetchOptions): () => void {
  const { editor, orgId, projectId, preload } = opts;
  const prefetch = opts.prefetch ?? prefetchImage;
  const timers = opts.timers ?? pageTimers;
  let live = true;
  const t = timers.setTimer(() => {
    for (const n of opts.neighbours) {
      if (!n) continue;
      void prefetch(n, orgId, projectId).then((px) => {
        if (px && live) preload(editor, n.id, px.source, px);
      });
    }
  }, PREFETCH_DELAY_MS);
  return () => {
    live = false;
    timers.clearTimer(t);
  };
}
