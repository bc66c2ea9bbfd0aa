// Archive tab (spec sections 2, 4 "Archive", 8, 9): archived images of the whole project, Restore
// with progress and a success dialog, and permanent Delete after a warning.
import { useCallback, useEffect, useRef, useState, type MouseEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Archive, ArchiveRestore, CircleCheck, TriangleAlert, Trash2 } from 'lucide-react';
import type { Image } from '../../../../contract/images';
import type { Project } from '../../../../contract/projects';
import { api } from '../../../api/client';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { EmptyState } from '../../../components/EmptyState';
import { toast } from '../../../stores/toast';
import { deniedReason, useCan, useRoleLabel } from '../../../stores/permissions';
import { projectKey } from '../../projects/queries';
import { showAlert } from './alerts';
import { NameList, SelectionBar } from './Chrome';
import { foldersKey } from './DataTab';
import { DEFAULT_SORT, useDataView } from './dataView';
import { requestThumbnails } from './thumbnails';
import { ImageTile } from './Tiles';
import { TileSkeletons } from './TileSkeletons';
import { useImageList } from './useImageList';
import { VirtualGrid } from './VirtualGrid';
import styles from './DataTab.module.css';
import own from './ArchiveTab.module.css';

const RESTORE_CHUNK = 50;

export function ArchiveTab({ project, orgId }: { project: Project; orgId: string }) {
  const qc = useQueryClient();
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
  const [restoring, setRestoring] = useState<{ current: number; total: number } | null>(null);
  const [restored, setRestored] = useState<string[] | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<Image[] | null>(null);
  const [showAll, setShowAll] = useState(false);
  const [deleting, setDeleting] = useState(false);

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

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.closest('input, textarea, select, [contenteditable="true"]') || t.closest('[role="dialog"], [role="menu"]'))) return;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') {
        if (!canSelect) return;
        e.preventDefault();
        view().setSelection(imagesRef.current.map((i) => i.id), imagesRef.current[0]?.id ?? null);
      } else if (e.key === 'Escape' && view().selected.size) view().clearSelection();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [view, canSelect]);

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

  const chosen = () => list.images.filter((i) => view().selected.has(i.id));
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: projectKey(project.id) });
    void qc.invalidateQueries({ queryKey: foldersKey(project.id) });
  };

  const restore = async () => {
    const images = chosen();
    if (!images.length) {
      showAlert('Could not find images to restore. Please refresh and try again.');
      return;
    }
    setRestoring({ current: 0, total: images.length });
    const names: string[] = [];
    try {
      for (let i = 0; i < images.length; i += RESTORE_CHUNK) {
        const chunk = images.slice(i, i + RESTORE_CHUNK);
        await api.batchUpdate(project.id, chunk.map((c) => c.id), { is_archived: false });
        names.push(...chunk.map((c) => c.filename));
        setRestoring({ current: Math.min(images.length, i + chunk.length), total: images.length });
      }
      setRestored(names);
    } catch {
      showAlert('Failed to restore images. Please try again.');
    } finally {
      setRestoring(null);
      view().clearSelection();
      list.reload();
      view().reload();
      refresh();
    }
  };

  const askDelete = () => {
    const images = chosen();
    if (!images.length) {
      showAlert('Could not find images to delete. Please refresh and try again.');
      return;
    }
    setShowAll(false);
    setConfirmDelete(images);
  };
  const doDelete = async () => {
    if (!confirmDelete) return;
    setDeleting(true);
    try {
      const res = await api.batchDelete(project.id, confirmDelete.map((i) => i.id));
      list.remove(res.deleted_ids);
      toast(`Permanently deleted ${res.deleted.toLocaleString()} image${res.deleted === 1 ? '' : 's'}`, 'success');
      view().clearSelection();
    } catch {
      showAlert('Failed to delete images. Please try again.');
      list.reload();
    } finally {
      setDeleting(false);
      setConfirmDelete(null);
      refresh();
    }
  };

  const selecting = selected.size > 0;
  return (
    <div className={styles.data}>
      <div className={styles.head}>
        <div className={styles.headTitle}>
          <h2>Archive</h2>
          <span className={`${styles.counter} tabular`}>
            {list.loading ? 'Loading…' : `${list.images.length.toLocaleString()} / ${list.total.toLocaleString()} loaded`}
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
          <Button variant="ghost" size="sm" icon={<ArchiveRestore />} className={styles.barButton} onClick={() => void restore()}>
            Restore
          </Button>
        ) : null}
        {canDelete ? (
          <Button variant="ghost" size="sm" icon={<Trash2 />} className={`${styles.barButton} ${styles.barDanger}`} onClick={askDelete}>
            Delete
          </Button>
        ) : null}
      </SelectionBar>

      <Dialog open={restoring !== null} onOpenChange={() => undefined} dismissible={false} icon={<ArchiveRestore />} title="Restoring images" description="They return to their folders in the Data tab.">
        {restoring ? (
          <div className={own.progress}>
            <span className={own.track} role="progressbar" aria-valuemin={0} aria-valuemax={restoring.total} aria-valuenow={restoring.current}>
              <span className={own.fill} style={{ width: `${(restoring.current / restoring.total) * 100}%` }} />
            </span>
            <span className="tabular">
              {restoring.current.toLocaleString()} of {restoring.total.toLocaleString()}
            </span>
          </div>
        ) : null}
      </Dialog>

      <Dialog
        open={restored !== null}
        onOpenChange={(o) => (!o ? setRestored(null) : undefined)}
        icon={<CircleCheck />}
        title="Images restored"
        description={restored ? `${restored.length.toLocaleString()} image${restored.length === 1 ? ' is' : 's are'} back in the dataset.` : undefined}
        footer={
          <Button variant="primary" onClick={() => setRestored(null)} autoFocus>
            Done
          </Button>
        }
      >
        {restored ? <NameList names={restored} /> : null}
      </Dialog>

      <Dialog
        open={confirmDelete !== null}
        onOpenChange={(o) => (!o && !deleting ? setConfirmDelete(null) : undefined)}
        dismissible={!deleting}
        tone="danger"
        icon={<TriangleAlert />}
        title={confirmDelete ? `Delete ${confirmDelete.length.toLocaleString()} image${confirmDelete.length === 1 ? '' : 's'} permanently?` : 'Delete permanently?'}
        description="This cannot be undone. The image files and their annotations are deleted for good."
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirmDelete(null)} disabled={deleting} autoFocus>
              Cancel
            </Button>
            <Button variant="danger" icon={<Trash2 />} onClick={() => void doDelete()} busy={deleting} busyLabel="Deleting...">
              Delete Permanently
            </Button>
          </>
        }
      >
        {confirmDelete ? <NameList names={confirmDelete.map((i) => i.filename)} expandable expanded={showAll} onExpand={() => setShowAll(true)} /> : null}
      </Dialog>
    </div>
  );
}
