// One folder's images, loaded in pages: 200 on the first or folder load, 50 for each 'more'
// (spec section 9). Each 'more' asks for the images after the last one loaded (keyset paging,
// `after=`): a deep page costs the server what the first does (an OFFSET of 100,000 rows cost
// 2.6-4.2x page 1 at 1M images, docs/performance/image-list.md), and removals never make it skip images; an
// image met twice (its sort key changed meanwhile) is dropped by id. A name search looks through
// the whole project; while its answer comes, the previous results stay on screen (`searching`), so
// typing does not flash.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Image, ImageStatus } from '../../../../contract/images';
import { api } from '../../../api/client';
import type { SortState } from '../../../stores/dataView';
import { annotationFilterParams, looksInEveryFolder, pendingFilterParams, type AnnotationFilter } from '../../../lib/links';

const FIRST_PAGE = 200;
const MORE_PAGE = 50;

/**
 * What the next 'more' asks for: the images after the last one loaded (its id as `after`); the
 * page number only names the page in the answer. Nothing loaded yet: the first page.
 */
export function morePage(loaded: readonly Pick<Image, 'id'>[]): { page: number; after?: string } {
  const last = loaded[loaded.length - 1];
  return last ? { page: Math.floor(loaded.length / MORE_PAGE) + 1, after: last.id } : { page: 1 };
}

export interface ImageListQuery {
  projectId: string;
  orgId: string;
  /** undefined: the whole project (the Archive view). */
  folderPath?: string;
  status: ImageStatus | null;
  /** File-name search ('' or absent: none); a search covers every folder. */
  search?: string;
  sort: SortState;
  /** A member's id, 'me' or 'none'; null or absent: everyone's images. */
  assignee?: string | null;
  /** Class, with or without annotations, a count range: these look through every folder too. */
  annotations?: AnnotationFilter;
  archived: boolean;
  reloadToken: number;
}

export interface ImageList {
  images: Image[];
  /** The matching images; with totalCapped, at least this many (the server stopped counting). */
  total: number;
  /** More images match than `total` says; the exact number comes with the last page. */
  totalCapped: boolean;
  hasNext: boolean;
  loading: boolean;
  /** A new search is on its way; the images shown are the previous answer's. */
  searching: boolean;
  loadingMore: boolean;
  error: unknown;
  loadMore(): void;
  remove(ids: Iterable<string>): void;
  patch(ids: Iterable<string>, change: Partial<Image>): void;
  reload(): void;
}

// Long because the first page, the further pages and the local edits share one generation counter
// and the loaded list, so an answer for an older view is never shown.
export function useImageList(q: ImageListQuery): ImageList {
  const [images, setImages] = useState<Image[]>([]);
  const [total, setTotal] = useState(0);
  const [totalCapped, setTotalCapped] = useState(false);
  const [hasNext, setHasNext] = useState(false);
  const [loading, setLoading] = useState(true);
  const [answered, setAnswered] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [localToken, setLocalToken] = useState(0);
  const generation = useRef(0);
  const imagesRef = useRef<Image[]>([]);
  imagesRef.current = images;
  const busyMore = useRef(false);

  const search = q.search ?? '';
  const everyFolder = looksInEveryFolder({ search, assignee: q.assignee ?? null, annotations: q.annotations });
  // One string for the dependency lists: a new filter object with the same contents is the same view.
  const annotationKey = JSON.stringify({ ...annotationFilterParams(q.annotations), ...pendingFilterParams(q.annotations) });
  const params = useCallback(
    (page: number, limit: number, after?: string) => ({
      org_id: q.orgId,
      after,
      folder_path: everyFolder ? undefined : q.folderPath,
      search: search || undefined,
      page,
      limit,
      sort_by: q.sort.field,
      sort_order: q.sort.order,
      status: q.status ?? undefined,
      assignee: q.assignee ?? undefined,
      ...(JSON.parse(annotationKey) as ReturnType<typeof annotationFilterParams> & ReturnType<typeof pendingFilterParams>),
      is_archived: q.archived ? ('true' as const) : ('false' as const),
    }),
    [q.orgId, q.folderPath, everyFolder, search, q.sort.field, q.sort.order, q.status, q.assignee, annotationKey, q.archived],
  );

  // Another folder, filter or sort starts empty (skeletons); a reload or a new search keeps what
  // is shown meanwhile. Starting or leaving a search is another view.
  const viewKey = JSON.stringify([q.projectId, everyFolder ? null : (q.folderPath ?? null), search !== '', q.status, q.assignee ?? null, annotationKey, q.sort.field, q.sort.order, q.archived]);
  const shownKey = useRef(viewKey);

  useEffect(() => {
    const gen = ++generation.current;
    if (shownKey.current !== viewKey) {
      shownKey.current = viewKey;
      setImages([]);
      setTotal(0);
      setTotalCapped(false);
      setHasNext(false);
    }
    setLoading(true);
    setError(null);
    api
      .listImages(q.projectId, params(1, FIRST_PAGE))
      .then((res) => {
        if (gen !== generation.current) return;
        setImages(res.images);
        setTotal(res.pagination.totalItems);
        setTotalCapped(res.pagination.totalCapped === true); // absent from an older server: exact
        setHasNext(res.pagination.hasNext);
        setLoading(false);
        setAnswered(search);
      })
      .catch((err: unknown) => {
        if (gen !== generation.current) return;
        setError(err);
        setLoading(false);
        setAnswered(search);
      });
  }, [q.projectId, params, search, q.reloadToken, localToken, viewKey]);

  const loadMore = useCallback(() => {
    if (busyMore.current || loading || !hasNext) return;
    busyMore.current = true;
    setLoadingMore(true);
    const gen = generation.current;
    const { page, after } = morePage(imagesRef.current);
    api
      .listImages(q.projectId, params(page, MORE_PAGE, after))
      .then((res) => {
        if (gen !== generation.current) return;
        setImages((old) => {
          const seen = new Set(old.map((i) => i.id));
          return [...old, ...res.images.filter((i) => !seen.has(i.id))];
        });
        setTotal(res.pagination.totalItems);
        setTotalCapped(res.pagination.totalCapped === true);
        setHasNext(res.pagination.hasNext);
      })
      .catch((err: unknown) => {
        if (gen === generation.current) setError(err);
      })
      .finally(() => {
        busyMore.current = false;
        setLoadingMore(false);
      });
  }, [loading, hasNext, q.projectId, params]);

  const cappedRef = useRef(false);
  cappedRef.current = totalCapped;
  const remove = useCallback((ids: Iterable<string>) => {
    const gone = new Set(ids);
    const before = imagesRef.current.length;
    const next = imagesRef.current.filter((i) => !gone.has(i.id));
    setImages(next);
    // A capped total is a lower bound that more images than it exceed: one gone leaves it true.
    if (!cappedRef.current) setTotal((t) => Math.max(0, t - (before - next.length)));
  }, []);

  const patch = useCallback((ids: Iterable<string>, change: Partial<Image>) => {
    const set = new Set(ids);
    setImages((old) => old.map((i) => (set.has(i.id) ? { ...i, ...change } : i)));
  }, []);

  const reload = useCallback(() => setLocalToken((t) => t + 1), []);

  const searching = loading && answered !== search;
  return { images, total, totalCapped, hasNext, loading, searching, loadingMore, error, loadMore, remove, patch, reload };
}
