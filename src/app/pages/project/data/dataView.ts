// Shared state of the project page's Data tab: the open folder, filter, name search, sort,
// selection and a reload counter that the header's Add button and the upload queue bump after new
// images land. A search looks through every folder of the project; the open folder is kept, so
// leaving the search returns to it, and opening a folder ends the search.
import { create } from 'zustand';
import type { ImageStatus, ListSortField } from '../../../../contract/images';

export interface SortState {
  field: ListSortField;
  order: 'asc' | 'desc';
}

interface DataViewState {
  projectId: string | null;
  folderPath: string;
  status: ImageStatus | null;
  /** File-name search, trimmed; '' when none. */
  search: string;
  sort: SortState;
  /** Selected image ids (Data or Archive tab, whichever is open). */
  selected: ReadonlySet<string>;
  anchor: string | null;
  reloadToken: number;
  reset(projectId: string): void;
  openFolder(path: string): void;
  setStatus(status: ImageStatus | null): void;
  setSearch(search: string): void;
  /** A new field starts descending; the same field toggles (spec section 9). */
  chooseSort(field: ListSortField): void;
  setSelection(ids: Iterable<string>, anchor?: string | null): void;
  clearSelection(): void;
  reload(): void;
}

export const DEFAULT_SORT: SortState = { field: 'created_at', order: 'desc' };

export const useDataView = create<DataViewState>()((set, get) => ({
  projectId: null,
  folderPath: '/',
  status: null,
  search: '',
  sort: DEFAULT_SORT,
  selected: new Set(),
  anchor: null,
  reloadToken: 0,
  reset(projectId) {
    if (get().projectId === projectId) return;
    set({ projectId, folderPath: '/', status: null, search: '', sort: DEFAULT_SORT, selected: new Set(), anchor: null });
  },
  openFolder(path) {
    set({ folderPath: path, search: '', selected: new Set(), anchor: null });
  },
  setStatus(status) {
    set({ status, selected: new Set(), anchor: null });
  },
  setSearch(search) {
    const next = search.trim();
    if (next !== get().search) set({ search: next, selected: new Set(), anchor: null });
  },
  chooseSort(field) {
    const { sort } = get();
    set({ sort: sort.field === field ? { field, order: sort.order === 'desc' ? 'asc' : 'desc' } : { field, order: 'desc' } });
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
}));

export const SORT_LABELS: Record<ListSortField, string> = {
  created_at: 'Date Added',
  updated_at: 'Date Updated',
  filename: 'Filename',
  file_size: 'File Size',
  annotation_count: 'Annotation Count',
  status: 'Status',
  mime_type: 'File Type',
};
