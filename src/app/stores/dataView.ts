// Shared state of the project page's Data tab: the open folder, filter, name search, sort,
// assignee filter, annotation filters (class, with or without annotations, a count range), selection and a reload counter that the header's Add button and the upload
// queue bump after new images land. A search looks through every folder of the project; the open
// folder is kept, so leaving the search returns to it, and opening a folder ends the search.
// The URL's query string is the truth for the view (issue 29, src/app/lib/links.ts): the page
// applies it here (applyQuery) and binds a writer, so a choice made here lands in the URL as a new
// history entry (opening a folder, a filter, a sort) or in place of the current one (typing a search).
import { create } from 'zustand';
import type { ImageStatus, ListSortField } from '../../contract/images';
import { DEFAULT_DATA_QUERY, DEFAULT_SORT, NO_ANNOTATION_FILTER, sameDataQuery, type AnnotationFilter, type DataQuery, type SortState } from '../lib/links';

export { DEFAULT_SORT, type SortState };

type QueryWriter = (query: DataQuery, mode: 'push' | 'replace') => void;
let writeQuery: QueryWriter | null = null;

/** The page's URL writer for the view's choices; returns the unbind. */
export function bindQueryWriter(writer: QueryWriter): () => void {
  writeQuery = writer;
  return () => {
    if (writeQuery === writer) writeQuery = null;
  };
}

interface DataViewState extends DataQuery {
  projectId: string | null;
  /** Selected image ids (Data or Archive tab, whichever is open). */
  selected: ReadonlySet<string>;
  anchor: string | null;
  reloadToken: number;
  /** The view the URL says for this project (a new project or another view starts unselected). */
  applyQuery(projectId: string, query: DataQuery): void;
  openFolder(path: string): void;
  setStatus(status: ImageStatus | null): void;
  setSearch(search: string): void;
  setAssignee(assignee: string | null): void;
  /** Adds the class to the class filter, or takes it out when it is there. */
  toggleClass(name: string): void;
  /** Changes some of the annotation filters; NO_ANNOTATION_FILTER clears them. */
  setAnnotationFilter(change: Partial<AnnotationFilter>): void;
  /** A new field starts descending; the same field toggles (spec section 9). */
  chooseSort(field: ListSortField): void;
  setSelection(ids: Iterable<string>, anchor?: string | null): void;
  clearSelection(): void;
  reload(): void;
}

const queryOf = (s: DataQuery): DataQuery => ({ folderPath: s.folderPath, status: s.status, search: s.search, sort: s.sort, assignee: s.assignee, annotations: s.annotations });

export const useDataView = create<DataViewState>()((set, get) => {
  /** A choice: the view changes at once and the URL follows. */
  const choose = (change: Partial<DataQuery>, mode: 'push' | 'replace' = 'push') => {
    const next = { ...queryOf(get()), ...change };
    if (sameDataQuery(next, queryOf(get()))) return;
    set({ ...change, selected: new Set(), anchor: null });
    writeQuery?.(next, mode);
  };
  return {
    projectId: null,
    ...DEFAULT_DATA_QUERY,
    selected: new Set(),
    anchor: null,
    reloadToken: 0,
    applyQuery(projectId, query) {
      if (get().projectId === projectId && sameDataQuery(query, queryOf(get()))) return;
      set({ projectId, ...query, selected: new Set(), anchor: null });
    },
    openFolder(path) {
      // Browsing a folder leaves the views that look through every folder (a search, My work, annotation filters).
      choose({ folderPath: path, search: '', assignee: null, annotations: NO_ANNOTATION_FILTER });
    },
    setStatus(status) {
      choose({ status });
    },
    setSearch(search) {
      const next = search.trim();
      // Starting or ending a search is a step back can undo; the typing in between is not.
      choose({ search: next }, next && get().search ? 'replace' : 'push');
    },
    setAssignee(assignee) {
      choose({ assignee });
    },
    toggleClass(name) {
      const { classes } = get().annotations;
      choose({ annotations: { ...get().annotations, classes: classes.includes(name) ? classes.filter((c) => c !== name) : [...classes, name] } });
    },
    setAnnotationFilter(change) {
      choose({ annotations: { ...get().annotations, ...change } });
    },
    chooseSort(field) {
      const { sort } = get();
      choose({ sort: sort.field === field ? { field, order: sort.order === 'desc' ? 'asc' : 'desc' } : { field, order: 'desc' } });
    },
    setSelection(ids, anchor) {
      set({ selected: new Set(ids), anchor: anchor === undefined ? get().anchor : anchor });
    },
    clearSelection() {
      set({ selected: new Set(), anchor: null });
    },
    reload() {
      set({ reloadToken: get().reloadToken + 1 });
    },
  };
});

export const SORT_LABELS: Record<ListSortField, string> = {
  created_at: 'Date Added',
  updated_at: 'Date Updated',
  filename: 'Filename',
  file_size: 'File Size',
  annotation_count: 'Annotation Count',
  status: 'Status',
  mime_type: 'File Type',
};
