// Archive tab (spec sections 2, 4 "Archive", 8, 9): archived images of the whole project, Restore
// with progress and a success dialog, and permanent Delete after a warning.
import { useCallback, useEffect, useRef, type MouseEvent } from 'react';
import { Archive, ArchiveRestore, Trash2 } from 'lucide-react';
import type { Image } from '../../../../contract/images';
import type { Project } from '../../../../contract/projects';
import { Button } from '../../../components/Button';
import { EmptyState } from '../../../components/EmptyState';
import { deniedReason, useCan, useRoleLabel } from '../../../stores/permissions';
import { showAlert } from './alerts';
import { ArchiveDialogs } from './ArchiveDialogs';
import { SelectionBar } from './Chrome';
import { DEFAULT_SORT, useDataView } from '../../../stores/dataView';
import { requestThumbnails } from './thumbnails';
import { ImageTile } from './Tiles';
import { TileSkeletons } from './TileSkeletons';
import { useArchiveActions } from './useArchiveActions';
import { useImageList } from './useImageList';
import { useSelectionKeys } from './useTileSelection';
import { VirtualGrid } from './VirtualGrid';
import { loadedCounterText, loadedCounterTitle } from './loadedCounter';
import styles from './DataTab.module.css';
import own from './ArchiveTab.module.css';

// Long because the Archive tab's list, selection, Restore with its progress and dialog, and Delete
// with its warning share one view.
export function ArchiveTab({ project, orgId }: { project: Project; orgId: string }) {
  // Reviewers and above restore; owners and admins delete for good (the server enforces both).
  // Actions a role may not take are hidden (the rule: src/app/stores/permissions.ts); with neither,
  // tiles cannot be selected (a selection would lead nowhere) and the hint says who can.
  const canRestore = useCan('images.archive');
  const canDelete = useCan('images.delete');
  const canSelect = canRestore || canDelete;
  const roleLabel = useRoleLabel();
  const { selected, reloadToken } = useDataView();
  const view = useDataView.getState;
  const list = useImageList({ projectId: project.id, orgId, folderPath: undefined, status: null, sort: DEFAULT_SORT, archived: true, reloadToken });

  useEffect(() => () => view().clearSelection(), [view]);
  useEffect(() => {
    if (list.error) showAlert('Failed to load folder contents. Please try again.');
  }, [list.error]);
  useEffect(() => {
    void requestThumbnails(orgId, list.images.slice(0, 60));
  }, [orgId, list.images]);
  const imagesRef = useRef(list.images);
  useEffect(() => {
    imagesRef.current = list.images;
  }, [list.images]);
  const onRange = useCallback(
    (start: number, end: number) => void requestThumbnails(orgId, imagesRef.current.slice(start, end)),
    [orgId],
  );

  useSelectionKeys(list.images, canSelect);

  const toggle = (image: Image, index: number, e: MouseEvent | null) => {
    const sel = new Set(view().selected);
    const anchor = view().anchor;
    if (e?.shiftKey && anchor) {
      const from = list.images.findIndex((i) => i.id === anchor);
      if (from >= 0) {
        const [a, b] = from < index ? [from, index] : [index, from];
        for (let i = a; i <= b; i += 1) sel.add(list.images[i].id);
        view().setSelection(sel);
        return;
      }
    }
    if (sel.has(image.id)) sel.delete(image.id);
    else sel.add(image.id);
    view().setSelection(sel, image.id);
  };

  const actions = useArchiveActions(project, list);

  const selecting = selected.size > 0;
  return (
    <div className={styles.data}>
      <div className={styles.head}>
        <div className={styles.headTitle}>
          <h2>Archive</h2>
          <span className={`${styles.counter} tabular`} title={loadedCounterTitle(list.total, list.totalCapped)}>
            {list.loading ? 'Loading…' : loadedCounterText(list.images.length, list.total, list.totalCapped)}
          </span>
        </div>
        {list.images.length && canSelect ? (
          <div className={styles.controls}>
            <Button variant="secondary" size="sm" onClick={() => view().setSelection(list.images.map((i) => i.id))}>
              Select all
            </Button>
          </div>
        ) : null}
      </div>
      <p className={own.hint}>
        Archived images are hidden from the dataset.{' '}
        {canRestore && canDelete
          ? 'Restore brings them back to their folders; deleting them here is permanent.'
          : canRestore
            ? 'Restore brings them back to their folders; admins and owners delete them permanently.'
            : `${deniedReason(roleLabel, 'restore or delete them')}; reviewers and above restore, admins and owners delete.`}
      </p>

      {list.loading && !list.images.length ? (
        <TileSkeletons count={5} label="Loading archived images" />
      ) : !list.images.length ? (
        <EmptyState icon={<Archive />} tone="neutral" title="No archived images" description="Images you archive from the Data tab appear here, ready to restore or delete for good." />
      ) : (
        <VirtualGrid
          items={list.images}
          label="Archived images"
          itemKey={(i) => i.id}
          onNearEnd={list.hasNext ? list.loadMore : undefined}
          onRange={onRange}
          renderItem={(image, index) => (
            <ImageTile
              image={image}
              selected={selected.has(image.id)}
              selecting={selecting}
              onActivate={canSelect ? (e) => toggle(image, index, e) : undefined}
              onToggle={canSelect ? (e) => toggle(image, index, e) : undefined}
            />
          )}
        />
      )}

      <SelectionBar count={selected.size} onClear={() => view().clearSelection()}>
        {canRestore ? (
          <Button variant="ghost" size="sm" icon={<ArchiveRestore />} className={styles.barButton} onClick={() => void actions.restore()}>
            Restore
          </Button>
        ) : null}
        {canDelete ? (
          <Button variant="ghost" size="sm" icon={<Trash2 />} className={`${styles.barButton} ${styles.barDanger}`} onClick={actions.askDelete}>
            Delete
          </Button>
        ) : null}
      </SelectionBar>

      <ArchiveDialogs actions={actions} />
    </div>
  );
}
