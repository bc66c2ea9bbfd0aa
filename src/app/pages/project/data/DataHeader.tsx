// The Data tab's head: 'Manage Dataset' with the loaded counter, the search by file name, the
// status filter, the sort and New Folder. (Export is the page header's: one entry point.)
import { ArrowDown, ArrowUp, ArrowUpDown, Check, ChevronDown, Filter, FolderPlus } from 'lucide-react';
import { LIST_SORT_FIELDS, type ImageStatus } from '../../../../contract/images';
import { Button } from '../../../components/Button';
import { STAGE_OPTIONS, statusLabel } from '../../../lib/stages';
import { Menu, MenuItem, MenuLabel, StageEntry } from './Chrome';
import { SORT_LABELS, useDataView, type SortState } from '../../../stores/dataView';
import { SearchField } from './SearchField';
import type { ImageList } from './useImageList';
import { loadedCounterText, loadedCounterTitle } from './loadedCounter';
import { WorkControls } from './WorkControls';
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
        <span className={`${styles.counter} tabular`} aria-live="polite" data-testid="loaded-counter" title={loadedCounterTitle(list.total, list.totalCapped)}>
          {list.loading && !loadedCount ? 'Loading…' : list.error && !loadedCount ? 'Not loaded' : loadedCounterText(loadedCount, list.total, list.totalCapped)}
        </span>
      </div>
      <div className={styles.controls}>
        <SearchField busy={list.searching} />
        <Menu
          label="Status filter"
          align="end"
          trigger={
            <Button variant="secondary" size="sm" icon={<Filter />} data-active={status !== null || undefined}>
              {status ? statusLabel(status) : 'All statuses'}
              <ChevronDown className={styles.chevron} aria-hidden="true" />
            </Button>
          }
        >
          <MenuLabel>Status</MenuLabel>
          <MenuItem checked={status === null} icon={status === null ? <Check /> : null} onSelect={() => view().setStatus(null)}>
            All statuses
          </MenuItem>
          {STAGE_OPTIONS.map((o) => (
            <MenuItem key={o.status} checked={status === o.status} icon={status === o.status ? <Check /> : null} onSelect={() => view().setStatus(o.status)}>
              <StageEntry option={o} />
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
        <WorkControls />
      </div>
    </div>
  );
}
