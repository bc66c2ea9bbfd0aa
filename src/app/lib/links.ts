// The app's URLs (issue 29: a URL for every view). A project is /projects/:projectId/<tab>, an
// image in the editor /projects/:projectId/images/:imageId; the Data view's folder, stage filter,
// search, sort, assignee filter and annotation filters (class, with or without annotations, a count
// range) live in the query string, and the editor's link carries the
// same query so previous / next follow the view it was opened from.
import { z } from 'zod';
import { normalizeFolderPath, ROOT_PATH } from '../../contract/folders';
import { ImageStatus, LIST_SORT_FIELDS, ListImagesQuery, MAX_CLASS_FILTER_LENGTH, MAX_CLASS_FILTERS, type ListSortField } from '../../contract/images';

export type ProjectTab = 'data' | 'archive' | 'classes' | 'analytics';
export const PROJECT_TABS: readonly ProjectTab[] = ['data', 'archive', 'classes', 'analytics'];

export interface SortState {
  field: ListSortField;
  order: 'asc' | 'desc';
}

export const DEFAULT_SORT: SortState = { field: 'created_at', order: 'desc' };

/** What the Data view shows, as its query string says. */
export interface DataQuery {
  folderPath: string;
  status: ImageStatus | null;
  /** File-name search, trimmed; '' when none (a search looks through every folder). */
  search: string;
  sort: SortState;
  /** A member's id, 'me' or 'none'; null: everyone's images. */
  assignee: string | null;
  /** Annotation filters (issue 32); any of them looks through every folder. */
  annotations: AnnotationFilter;
}

/** URL `class` (repeated), `annotated=yes|no`, `min_annotations`, `max_annotations`. */
export interface AnnotationFilter {
  /** Images having any of these classes; [] none. */
  classes: string[];
  /** 'yes': at least one annotation, 'no': none, null: either. */
  annotated: 'yes' | 'no' | null;
  /** Annotations on the image, inclusive; null: no bound. */
  min: number | null;
  max: number | null;
  /** URL `pending=yes|no`: with or without a model's pending predictions (issue 34); absent or null: either. */
  pending?: 'yes' | 'no' | null;
}

export const NO_ANNOTATION_FILTER: AnnotationFilter = { classes: [], annotated: null, min: null, max: null };

export const DEFAULT_DATA_QUERY: DataQuery = { folderPath: ROOT_PATH, status: null, search: '', sort: DEFAULT_SORT, assignee: null, annotations: NO_ANNOTATION_FILTER };

export function hasAnnotationFilter(f: AnnotationFilter | undefined): boolean {
  return !!f && (f.classes.length > 0 || f.annotated !== null || f.min !== null || f.max !== null || !!f.pending);
}

/** The annotation filters as GET /projects/{id}/images and the export's filters name them. */
export function annotationFilterParams(f: AnnotationFilter | undefined): { class?: string[]; has_annotations?: 'true' | 'false'; min_annotations?: number; max_annotations?: number } {
  if (!f) return {};
  return {
    ...(f.classes.length > 0 ? { class: f.classes } : {}),
    ...(f.annotated ? { has_annotations: f.annotated === 'yes' ? ('true' as const) : ('false' as const) } : {}),
    ...(f.min !== null ? { min_annotations: f.min } : {}),
    ...(f.max !== null ? { max_annotations: f.max } : {}),
  };
}

/** The pending-predictions filter as GET /projects/{id}/images names it (not an export filter). */
export function pendingFilterParams(f: AnnotationFilter | undefined): { has_pending_predictions?: 'true' | 'false' } {
  return f?.pending ? { has_pending_predictions: f.pending === 'yes' ? 'true' : 'false' } : {};
}

const COUNT_MAX = 1_000_000_000;
/** A whole number from 0 in the URL, else null. */
function countParam(raw: string | null): number | null {
  if (raw === null || !/^\d{1,10}$/.test(raw)) return null;
  const n = Number(raw);
  return n <= COUNT_MAX ? n : null;
}

function parseAnnotationFilter(params: URLSearchParams): AnnotationFilter {
  const classes = [...new Set(params.getAll('class').map((c) => c.trim()).filter((c) => c !== '' && c.length <= MAX_CLASS_FILTER_LENGTH))].slice(0, MAX_CLASS_FILTERS);
  const annotated = params.get('annotated');
  let min = countParam(params.get('min_annotations'));
  let max = countParam(params.get('max_annotations'));
  if (min !== null && max !== null && min > max) min = max = null; // a range that selects nothing is malformed
  const pending = params.get('pending');
  return { classes, annotated: annotated === 'yes' || annotated === 'no' ? annotated : null, min, max, ...(pending === 'yes' || pending === 'no' ? { pending } : {}) };
}

const Uuid = z.string().uuid();
/** Ids in a URL are checked before any call: a malformed one is simply not found. */
export const isUuid = (value: string | undefined): value is string => value !== undefined && Uuid.safeParse(value).success;

const SEARCH_MAX = 200;
const SortField = z.enum(LIST_SORT_FIELDS);

/** The Data view's query read from the URL; anything malformed falls back to its default. */
export function parseDataQuery(params: URLSearchParams): DataQuery {
  const folder = params.get('folder');
  const normalized = folder === null ? null : normalizeFolderPath(folder);
  const status = ImageStatus.safeParse(params.get('stage'));
  const field = SortField.safeParse(params.get('sort'));
  const order = params.get('order');
  const assignee = ListImagesQuery.shape.assignee.safeParse(params.get('assignee') ?? undefined);
  return {
    folderPath: normalized && 'path' in normalized ? normalized.path : ROOT_PATH,
    status: status.success ? status.data : null,
    search: (params.get('q') ?? '').trim().slice(0, SEARCH_MAX),
    sort: field.success ? { field: field.data, order: order === 'asc' || order === 'desc' ? order : 'desc' } : DEFAULT_SORT,
    assignee: assignee.success ? (assignee.data ?? null) : null,
    annotations: parseAnnotationFilter(params),
  };
}

/**
 * Whether the view lists matches from every folder instead of one folder's images: a name search,
 * an assignee filter (My work is the caller's images wherever they are filed), or an annotation
 * filter (the class panel counts the whole project).
 */
export function looksInEveryFolder(q: Pick<DataQuery, 'search' | 'assignee'> & { annotations?: AnnotationFilter }): boolean {
  return q.search !== '' || q.assignee !== null || hasAnnotationFilter(q.annotations);
}

/** The query string of a Data view ('' for the default view), defaults left out, in a fixed order. */
export function dataQueryString(q: DataQuery): string {
  const params = new URLSearchParams();
  if (q.folderPath !== ROOT_PATH) params.set('folder', q.folderPath);
  if (q.search) params.set('q', q.search);
  if (q.status) params.set('stage', q.status);
  if (q.assignee) params.set('assignee', q.assignee);
  for (const name of q.annotations.classes) params.append('class', name);
  if (q.annotations.annotated) params.set('annotated', q.annotations.annotated);
  if (q.annotations.min !== null) params.set('min_annotations', String(q.annotations.min));
  if (q.annotations.max !== null) params.set('max_annotations', String(q.annotations.max));
  if (q.annotations.pending) params.set('pending', q.annotations.pending);
  if (q.sort.field !== DEFAULT_SORT.field || q.sort.order !== DEFAULT_SORT.order) {
    params.set('sort', q.sort.field);
    params.set('order', q.sort.order);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function sameDataQuery(a: DataQuery, b: DataQuery): boolean {
  return dataQueryString(a) === dataQueryString(b);
}

const enc = encodeURIComponent;

export function projectPath(projectId: string, tab: ProjectTab = 'data', query = ''): string {
  return `/projects/${enc(projectId)}/${tab}${query}`;
}

/** The editor's URL; `query` is the Data view's query string (with its '?'), kept for previous / next and Back. */
export function imagePath(projectId: string, imageId: string, query = ''): string {
  return `/projects/${enc(projectId)}/images/${enc(imageId)}${query}`;
}


/** The reviewer's merge view of an overlapped image's drafts (issue 36 §3). */
export function mergePath(projectId: string, imageId: string): string {
  return `/projects/${enc(projectId)}/images/${enc(imageId)}/merge`;
}
