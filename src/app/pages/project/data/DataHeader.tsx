// The Data tab's head: 'Manage Dataset' with the loaded counter, the status filter, the sort,
// New Folder and Export.
import { ArrowDown, ArrowUp, ArrowUpDown, Check, ChevronDown, Download, Filter, FolderPlus } from 'lucide-react';
import { IMAGE_STATUSES, LIST_SORT_FIELDS, type ImageStatus } from '../../../../contract/images';
import { Button } from '../../../components/Button';
import { Menu, MenuItem, MenuLabel } from './Chrome';
import { SORT_LABELS, STATUS_LABELS, useDataView, type SortState } from './dataView';
import { useExportDialog } from './ExportDialog';
import type { ImageList } from './useImageList';
import styles from './DataTab.module.css';

export function DataHeader({
  list,
  status,
  sort,
  creating,
  folderDenied,
  onCreateFolder,
}: {
  list: ImageList;
  status: ImageStatus | null;
  sort: SortState;
  creating: boolean;
  folderDenied: string | null;
  onCreateFolder(): void;
}) {
  const view = useDataView.getState;
  const loadedCount = list.images.length;
  return (
    <div className={styles.head}>
      <div className={styles.headTitle}>
        <h2>Manage Dataset</h2>
        <span className={`${styles.counter} tabular`} aria-live="polite" data-testid="loaded-counter">
          {list.loading && !loadedCount ? 'Loading…' : list.error && !loadedCount ? 'Not loaded' : `${loadedCount.toLocaleString()} / ${list.total.toLocaleString()} loaded`}
        </span>
      </div>
      <div className={styles.controls}>
        <Menu
          label="Status filter"
          align="end"
          trigger={
            <Button variant="secondary" size="sm" icon={<Filter />} data-active={status !== null || undefined}>
              {status ? STATUS_LABELS[status] : 'All statuses'}
              <ChevronDown className={styles.chevron} aria-hidden="true" />
            </Button>
          }
        >
          <MenuLabel>Status</MenuLabel>
          <MenuItem checked={status === null} icon={status === null ? <Check /> : null} onSelect={() => view().setStatus(null)}>
            All statuses
          </MenuItem>
          {IMAGE_STATUSES.map((s) => (
            <MenuItem key={s} checked={status === s} icon={status === s ? <Check /> : null} onSelect={() => view().setStatus(s)}>
              <span className={styles.status} data-status={s}>
                <span className={styles.statusDot} aria-hidden="true" />
                {STATUS_LABELS[s]}
              </span>
            </MenuItem>
          ))}
        </Menu>
        <Menu
          label="Sort"
          align="end"
          trigger={
            <Button variant="secondary" size="sm" icon={<ArrowUpDown />}>
              {SORT_LABELS[sort.field]}
              {sort.order === 'desc' ? <ArrowDown className={styles.chevron} aria-label="descending" /> : <ArrowUp className={styles.chevron} aria-label="ascending" />}
            </Button>
          }
        >
          <MenuLabel>Sort by</MenuLabel>
          {LIST_SORT_FIELDS.filter((f) => f !== 'mime_type').map((f) => (
            <MenuItem
              key={f}
              checked={sort.field === f}
              icon={sort.field === f ? sort.order === 'desc' ? <ArrowDown /> : <ArrowUp /> : null}
              onSelect={() => view().chooseSort(f)}
            >
              {SORT_LABELS[f]}
            </MenuItem>
          ))}
        </Menu>
        <Button variant="secondary" size="sm" icon={<FolderPlus />} onClick={onCreateFolder} busy={creating} disabledReason={folderDenied}>
          New Folder
        </Button>
        <Button variant="secondary" size="sm" icon={<Download />} onClick={() => useExportDialog.getState().show()}>
          Export
        </Button>
      </div>
    </div>
  );
}
