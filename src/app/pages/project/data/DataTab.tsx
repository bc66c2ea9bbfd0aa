// Data tab 'Manage Dataset' (spec sections 2, 4, 5, 8, 9): counter, status filter, sort, folder
// breadcrumb with Back and a 'Back to parent' drop tile, folder and image tiles in a virtualised
// grid with infinite loading, selection, the floating toolbar, drag and drop, desktop file drop.
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Archive,
  ArrowDown,
  ArrowLeft,
  ArrowUp,
  ArrowUpDown,
  Ban,
  Check,
  ChevronDown,
  ChevronRight,
  Download,
  Filter,
  Folder,
  FolderInput,
  FolderPlus,
  Home,
  Layers,
  RefreshCw,
  SearchX,
  UploadCloud,
  Wand2,
} from 'lucide-react';
import { IMAGE_STATUSES, LIST_SORT_FIELDS, nextStatus, type Image, type ImageStatus } from '../../../../contract/images';
import { ROOT_PATH, parentFolderPath, type FolderNode } from '../../../../contract/folders';
import type { Project } from '../../../../contract/projects';
import { api } from '../../../api/client';
import { AnnotatePage } from '../../../lazyRoutes';
import { Button, IconButton } from '../../../components/Button';
import { EmptyState } from '../../../components/EmptyState';
import { Skeleton } from '../../../components/Skeleton';
import { useCan, useDenied } from '../../../stores/permissions';
import { toast } from '../../../stores/toast';
import { projectKey } from '../../projects/queries';
import { showAlert } from './alerts';
import { Menu, MenuItem, MenuLabel, MenuSeparator, SelectionBar } from './Chrome';
import { SORT_LABELS, STAGE_LABELS, STATUS_LABELS, useDataView } from './dataView';
import { EditDialog } from './EditDialog';
import { ExportDialog, useExportDialog } from './ExportDialog';
import { requestThumbnails } from './thumbnails';
import { FolderTile, ImageTile, ParentTile, type DropPayload } from './Tiles';
import { useImageList } from './useImageList';
import { VirtualGrid } from './VirtualGrid';
import styles from './DataTab.module.css';

export const foldersKey = (projectId: string) => ['folders', projectId] as const;

type Item = { kind: 'parent' } | { kind: 'folder'; folder: FolderNode } | { kind: 'image'; image: Image; index: number };

function findFolder(nodes: readonly FolderNode[], path: string): FolderNode | null {
  for (const n of nodes) {
    if (n.full_path === path) return n;
    if (path.startsWith(`${n.full_path}/`)) return findFolder(n.children, path);
  }
  return null;
}

function flatten(nodes: readonly FolderNode[], depth = 0, out: { folder: FolderNode; depth: number }[] = []) {
  for (const n of [...nodes].sort((a, b) => a.name.localeCompare(b.name))) {
    out.push({ folder: n, depth });
    flatten(n.children, depth + 1, out);
  }
  return out;
}

const folderName = (path: string) => (path === ROOT_PATH ? 'All images' : path.slice(path.lastIndexOf('/') + 1));
const plural = (n: number) => `${n.toLocaleString()} image${n === 1 ? '' : 's'}`;

export function useFolders(projectId: string, orgId: string) {
  return useQuery({ queryKey: foldersKey(projectId), queryFn: () => api.listFolders(projectId, orgId) });
}

export function DataTab({ project, orgId, onUpload }: { project: Project; orgId: string; onUpload(files: File[]): void }) {
  const navigate = useNavigate();
  const qc = useQueryClient();
  const { folderPath, status, sort, selected, reloadToken } = useDataView();
  const view = useDataView.getState;
  const list = useImageList({ projectId: project.id, orgId, folderPath, status, sort, archived: false, reloadToken });
  const folders = useFolders(project.id, orgId);
  const [renamingId, setRenamingId] = useState<string | null>(null);
  const [hiddenFolders, setHiddenFolders] = useState<ReadonlySet<string>>(new Set());
  const [fileOver, setFileOver] = useState(false);
  const [creating, setCreating] = useState(false);
  const [editOpen, setEditOpen] = useState(false);
  // What the role may do here (the rule: src/app/stores/permissions.ts). New Folder, a header
  // button, stays disabled with the reason; toolbar actions, tile actions and drags are hidden;
  // a desktop file drop is refused with the reason.
  // Magic Image Edit makes new images: the roles that upload (images.edit).
  const canEdit = useCan('images.edit');
  // Annotators and viewers see the status; reviewers and up change it (images.stage).
  const canStage = useCan('images.stage');
  // Folders, their names, moves of images and folders (images.organize): annotators and up.
  const canOrganize = useCan('images.organize');
  const canArchive = useCan('images.archive');
  const folderDenied = useDenied('images.organize', 'create folders');
  const uploadDenied = useDenied('images.upload', 'upload images');
  const dragDepth = useRef(0);

  const refreshMeta = useCallback(() => {
    void qc.invalidateQueries({ queryKey: foldersKey(project.id) });
    void qc.invalidateQueries({ queryKey: projectKey(project.id) });
  }, [qc, project.id]);

  // A failed folder load is an alert (spec section 8) and an error state with a retry.
  useEffect(() => {
    if (list.error) showAlert('Failed to load folder contents. Please try again.');
  }, [list.error]);

  const tree = folders.data?.folders ?? [];
  const current = folderPath === ROOT_PATH ? null : findFolder(tree, folderPath);
  const childFolders = (folderPath === ROOT_PATH ? tree : (current?.children ?? []))
    .filter((f) => !hiddenFolders.has(f.id))
    .slice()
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
  // Folders stay visible under a status filter so the tree can still be browsed.
  const showFolders = true;

  const items = useMemo<Item[]>(() => {
    const out: Item[] = [];
    if (folderPath !== ROOT_PATH) out.push({ kind: 'parent' });
    if (showFolders) for (const folder of childFolders) out.push({ kind: 'folder', folder });
    list.images.forEach((image, index) => out.push({ kind: 'image', image, index }));
    return out;
  }, [folderPath, showFolders, childFolders, list.images]);

  // Thumbnails for what is on screen (batched and paced in requestThumbnails).
  const itemsRef = useRef(items);
  useEffect(() => {
    itemsRef.current = items;
  }, [items]);
  const onRange = useCallback(
    (start: number, end: number) => {
      const visible = itemsRef.current.slice(start, end).flatMap((it) => (it.kind === 'image' ? [it.image] : []));
      void requestThumbnails(orgId, visible);
    },
    [orgId],
  );
  useEffect(() => {
    void requestThumbnails(orgId, list.images.slice(0, 60));
  }, [orgId, list.images]);
  // Images on screen: the editor is likely next, so its code is fetched in an idle moment.
  const hasImages = list.images.length > 0;
  useEffect(() => {
    if (!hasImages) return;
    const idle = window.requestIdleCallback?.(() => AnnotatePage.preload(), { timeout: 5000 });
    return () => {
      if (idle !== undefined) window.cancelIdleCallback(idle);
    };
  }, [hasImages]);

  // --- selection
  const selecting = selected.size > 0;
  const toggle = useCallback(
    (image: Image, index: number, e: MouseEvent | null) => {
      const sel = new Set(view().selected);
      if (e?.shiftKey && view().anchor) {
        const from = list.images.findIndex((i) => i.id === view().anchor);
        if (from >= 0) {
          // Walk from the anchor so it stays the first selected (a bulk 'Next stage' follows it).
          const next = e.metaKey || e.ctrlKey ? sel : new Set<string>();
          const step = from <= index ? 1 : -1;
          for (let i = from; i !== index + step; i += step) next.add(list.images[i].id);
          view().setSelection(next);
          return;
        }
      }
      if (sel.has(image.id)) sel.delete(image.id);
      else sel.add(image.id);
      view().setSelection(sel, image.id);
    },
    [list.images, view],
  );
  const activate = useCallback(
    (image: Image, index: number, e: MouseEvent | null) => {
      if (e && (e.shiftKey || e.metaKey || e.ctrlKey || view().selected.size > 0)) {
        toggle(image, index, e);
        return;
      }
      navigate(`/project/annotate/${encodeURIComponent(image.filename)}`, { state: { imageId: image.id, folderPath: image.virtual_folder_path } });
    },
    [navigate, toggle, view],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.closest('input, textarea, select, [contenteditable="true"]') || t.closest('[role="dialog"], [role="menu"]'))) return;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') {
        e.preventDefault();
        view().setSelection(list.images.map((i) => i.id), list.images[0]?.id ?? null);
      } else if (e.key === 'Escape' && view().selected.size) {
        view().clearSelection();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [list.images, view]);

  // --- moves (spec section 4 "Drag and drop": optimistic removal, reload on failure)
  // `via`: a drag gets the spec's message for where it was dropped; the toolbar's Folder menu the
  // generic one.
  const moveImages = async (ids: string[], target: string, via: 'drag' | 'menu') => {
    if (!ids.length || target === folderPath) return;
    const toParent = target === parentFolderPath(folderPath) && folderPath !== ROOT_PATH;
    list.remove(ids);
    view().setSelection([...view().selected].filter((id) => !ids.includes(id)));
    try {
      const res = await api.batchMove(project.id, ids, target);
      toast(`Moved ${plural(res.moved)} to ${folderName(target)}`, 'success');
    } catch {
      showAlert(
        via === 'menu'
          ? 'Failed to move items. Please try again.'
          : toParent
            ? 'Failed to move images to parent directory. Please try again.'
            : 'Failed to move images to folder. Please try again.',
      );
      list.reload();
    } finally {
      refreshMeta();
    }
  };
  const moveFolder = async (folderId: string, target: string) => {
    const toParent = target === parentFolderPath(folderPath) && folderPath !== ROOT_PATH;
    setHiddenFolders((h) => new Set(h).add(folderId));
    try {
      await api.moveFolder(folderId, target);
      toast(`Moved folder to ${folderName(target)}`, 'success');
    } catch {
      showAlert(toParent ? 'Failed to move folder to parent directory. Please try again.' : 'Failed to move folder. Please try again.');
    } finally {
      await qc.invalidateQueries({ queryKey: foldersKey(project.id) });
      setHiddenFolders((h) => {
        const next = new Set(h);
        next.delete(folderId);
        return next;
      });
      void qc.invalidateQueries({ queryKey: projectKey(project.id) });
    }
  };
  const onDropTo = (target: string) => (payload: DropPayload) => {
    if (payload.folderId) void moveFolder(payload.folderId, target);
    else void moveImages(payload.imageIds, target, 'drag');
  };

  // --- folders
  const createFolder = async () => {
    setCreating(true);
    try {
      const res = await api.createFolder(project.id, folderPath);
      await qc.invalidateQueries({ queryKey: foldersKey(project.id) });
      setRenamingId(res.folder.id);
    } catch {
      showAlert('Failed to create folder. Please try again.');
    } finally {
      setCreating(false);
    }
  };
  const renameFolder = async (folder: FolderNode, name: string | null) => {
    setRenamingId(null);
    if (!name) return;
    qc.setQueryData(foldersKey(project.id), (old: typeof folders.data) => {
      if (!old) return old;
      const rename = (nodes: FolderNode[]): FolderNode[] => nodes.map((n) => (n.id === folder.id ? { ...n, name } : { ...n, children: rename(n.children) }));
      return { ...old, folders: rename(old.folders) };
    });
    try {
      await api.renameFolder(folder.id, name);
    } catch {
      showAlert(`Failed to rename folder "${folder.name}". Please try again.`);
    } finally {
      void qc.invalidateQueries({ queryKey: foldersKey(project.id) });
    }
  };

  // --- toolbar actions
  // In the order they were selected (the set keeps it): a bulk 'Next stage' cycles the first
  // selected image's status (spec section 4), and Edit takes the first five. Only loaded images.
  const selectedIds = () => {
    const loaded = new Set(list.images.map((i) => i.id));
    return [...view().selected].filter((id) => loaded.has(id));
  };
  const setStage = async (next: ImageStatus | 'cycle') => {
    const ids = selectedIds();
    if (!ids.length) return;
    if (next !== 'cycle') list.patch(ids, { status: next });
    try {
      const res = await api.batchUpdate(project.id, ids, next === 'cycle' ? { cycle: true } : { status: next });
      const applied = res.status ?? (next === 'cycle' ? null : next);
      if (applied) {
        if (status && applied !== status) list.remove(ids);
        else list.patch(ids, { status: applied });
        toast(`${plural(res.updated)} set to ${STAGE_LABELS[applied]}`, 'success');
      }
    } catch {
      showAlert('Failed to update image status. Please try again.');
      list.reload();
    } finally {
      void qc.invalidateQueries({ queryKey: projectKey(project.id) });
    }
  };
  const selectedImages = () => {
    const byId = new Map(list.images.map((i) => [i.id, i]));
    return selectedIds().map((id) => byId.get(id)!);
  };

  // Single-image cycle (spec section 4) through PATCH /images/{id}/status: the tile shows the next
  // status at once; one image's requests run one after another (so quick clicks land in order) and,
  // once none is left, the tile shows what the server last confirmed: a failure rolls back.
  const statusRuns = useRef(new Map<string, { shown: ImageStatus; confirmed: ImageStatus; pending: number; tail: Promise<void> }>());
  const cycleStatus = (image: Image) => {
    const runs = statusRuns.current;
    let run = runs.get(image.id);
    if (!run) {
      run = { shown: image.status, confirmed: image.status, pending: 0, tail: Promise.resolve() };
      runs.set(image.id, run);
    }
    const r = run;
    const next = nextStatus(r.shown);
    r.shown = next;
    r.pending += 1;
    list.patch([image.id], { status: next });
    r.tail = r.tail.then(async () => {
      try {
        const res = await api.updateImageStatus(image.id, orgId, next);
        r.confirmed = res.image.status;
      } catch {
        showAlert('Failed to update image status. Please try again.');
      } finally {
        r.pending -= 1;
        if (r.pending === 0) {
          runs.delete(image.id);
          list.patch([image.id], { status: r.confirmed });
          // Completed counts on the header and project cards.
          void qc.invalidateQueries({ queryKey: projectKey(project.id) });
        }
      }
    });
  };

  const archive = async () => {
    const ids = selectedIds();
    if (!ids.length) return;
    list.remove(ids);
    view().clearSelection();
    try {
      const res = await api.batchUpdate(project.id, ids, { is_archived: true });
      toast(`Archived ${plural(res.updated)}`, 'success');
    } catch {
      showAlert('Failed to archive images. Please try again.');
      list.reload();
      // The images come back selected, as a failed delete in the Archive tab keeps them: one click to retry.
      view().setSelection(ids);
    } finally {
      refreshMeta();
    }
  };

  // --- Magic Image Edit: new images in the folder on screen reload it; counts everywhere follow.
  const onEditLanded = useCallback(
    (target: string) => {
      if (useDataView.getState().folderPath === target) view().reload();
      refreshMeta();
    },
    [refreshMeta, view],
  );

  // --- desktop files
  // A role that may not upload: the overlay says so for the whole drag and the drop effect is
  // 'none' (a not-allowed cursor; browsers then end the drag with dragleave, not drop); a drop
  // that arrives anyway is refused with the same note.
  const hasFiles = (e: DragEvent) => e.dataTransfer.types.includes('Files');
  const dropHandlers = {
    onDragEnter: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      dragDepth.current += 1;
      setFileOver(true);
    },
    onDragOver: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = uploadDenied ? 'none' : 'copy';
    },
    onDragLeave: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      dragDepth.current = Math.max(0, dragDepth.current - 1);
      if (!dragDepth.current) setFileOver(false);
    },
    onDrop: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      dragDepth.current = 0;
      setFileOver(false);
      if (uploadDenied) {
        toast(uploadDenied, 'danger', 4000);
        return;
      }
      const files = Array.from(e.dataTransfer.files);
      if (files.length) onUpload(files);
    },
  };

  const crumbs = folderPath === ROOT_PATH ? [] : folderPath.slice(1).split('/');
  const allFolders = flatten(tree);
  const filtered = status !== null;
  const loadedCount = list.images.length;

  return (
    <div className={styles.data} {...dropHandlers} data-file-over={fileOver || undefined}>
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
              <Button variant="secondary" size="sm" icon={<Filter />} data-active={filtered || undefined}>
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
          <Button variant="secondary" size="sm" icon={<FolderPlus />} onClick={() => void createFolder()} busy={creating} disabledReason={folderDenied}>
            New Folder
          </Button>
          <Button variant="secondary" size="sm" icon={<Download />} onClick={() => useExportDialog.getState().show()}>
            Export
          </Button>
        </div>
      </div>

      <nav className={styles.pathBar} aria-label="Folder path">
        <IconButton label="Back" icon={<ArrowLeft />} disabled={folderPath === ROOT_PATH} onClick={() => view().openFolder(parentFolderPath(folderPath))} />
        <ol className={styles.path}>
          <li>
            <button type="button" className={styles.pathLink} onClick={() => view().openFolder(ROOT_PATH)} aria-current={folderPath === ROOT_PATH ? 'page' : undefined}>
              <Home aria-hidden="true" />
              All images
            </button>
          </li>
          {crumbs.map((name, i) => {
            const path = `/${crumbs.slice(0, i + 1).join('/')}`;
            return (
              <li key={path}>
                <ChevronRight aria-hidden="true" className={styles.pathSep} />
                <button type="button" className={styles.pathLink} onClick={() => view().openFolder(path)} aria-current={path === folderPath ? 'page' : undefined}>
                  <Folder aria-hidden="true" />
                  {name}
                </button>
              </li>
            );
          })}
        </ol>
      </nav>

      {list.loading && !list.images.length ? (
        <div className={styles.skeletonGrid} aria-busy="true" aria-label="Loading images">
          {Array.from({ length: 10 }, (_, i) => (
            <div key={i} className={styles.skeletonTile}>
              <Skeleton className={styles.skeletonThumb} />
              <Skeleton className={styles.skeletonLine} />
              <Skeleton className={styles.skeletonLineShort} />
            </div>
          ))}
        </div>
      ) : list.error && !list.images.length ? (
        <EmptyState
          icon={<RefreshCw />}
          tone="danger"
          role="alert"
          title="Failed to load folder contents"
          description="Please try again."
          action={
            <Button variant="secondary" icon={<RefreshCw />} onClick={list.reload}>
              Try again
            </Button>
          }
        />
      ) : (
        <>
          <VirtualGrid
            items={items}
            label={`Contents of ${folderName(folderPath)}`}
            itemKey={(it) => (it.kind === 'parent' ? 'parent' : it.kind === 'folder' ? `f:${it.folder.id}` : it.image.id)}
            onNearEnd={list.hasNext ? list.loadMore : undefined}
            onRange={onRange}
            renderItem={(it) =>
              it.kind === 'parent' ? (
                <ParentTile
                  label={folderName(parentFolderPath(folderPath))}
                  onOpen={() => view().openFolder(parentFolderPath(folderPath))}
                  onDrop={canOrganize ? onDropTo(parentFolderPath(folderPath)) : undefined}
                />
              ) : it.kind === 'folder' ? (
                <FolderTile
                  folder={it.folder}
                  renaming={canOrganize && renamingId === it.folder.id}
                  onOpen={() => view().openFolder(it.folder.full_path)}
                  onRenameStart={canOrganize ? () => setRenamingId(it.folder.id) : undefined}
                  onRename={(name) => void renameFolder(it.folder, name)}
                  onDrop={canOrganize ? onDropTo(it.folder.full_path) : undefined}
                />
              ) : (
                <ImageTile
                  image={it.image}
                  selected={selected.has(it.image.id)}
                  selecting={selecting}
                  draggableIds={canOrganize ? () => (selected.has(it.image.id) ? selectedIds() : [it.image.id]) : undefined}
                  onActivate={(e) => activate(it.image, it.index, e)}
                  onToggle={(e) => toggle(it.image, it.index, e)}
                  onCycleStatus={canStage ? () => cycleStatus(it.image) : undefined}
                />
              )
            }
          />
          {list.loadingMore ? (
            <p className={styles.loadingMore} aria-live="polite">
              Loading more…
            </p>
          ) : null}
          {!list.loading && !list.images.length && !(showFolders && childFolders.length) ? (
            filtered ? (
              <EmptyState
                icon={<SearchX />}
                tone="neutral"
                title={`No ${STATUS_LABELS[status].toLowerCase()} images here`}
                description="Try another status, or show all statuses."
                action={
                  <Button variant="secondary" onClick={() => view().setStatus(null)}>
                    Show all statuses
                  </Button>
                }
              />
            ) : (
              <EmptyState
                icon={<UploadCloud />}
                title={folderPath === ROOT_PATH ? (uploadDenied ? 'No images yet' : 'Add your first images') : 'This folder is empty'}
                description={
                  uploadDenied
                    ? `${uploadDenied}; they appear here once a teammate adds them.`
                    : 'Drop image files here, or choose them with Add. JPEG, PNG, GIF, WebP, BMP and SVG are accepted.'
                }
              />
            )
          ) : null}
        </>
      )}

      {fileOver ? (
        <div className={styles.dropOverlay} data-refused={uploadDenied ? true : undefined} aria-hidden="true">
          {uploadDenied ? <Ban /> : <UploadCloud />}
          <span>{uploadDenied ?? `Drop to upload to ${folderName(folderPath)}`}</span>
        </div>
      ) : null}

      <SelectionBar count={selected.size} onClear={() => view().clearSelection()}>
        {canOrganize ? (
          <Menu
            label="Move to folder"
            side="top"
            trigger={
              <Button variant="ghost" size="sm" icon={<FolderInput />} className={styles.barButton}>
                Folder
              </Button>
            }
          >
            <MenuLabel>Move to folder</MenuLabel>
            {folderPath !== ROOT_PATH ? (
              <MenuItem icon={<Home />} onSelect={() => void moveImages(selectedIds(), ROOT_PATH, 'menu')}>
                All images (root)
              </MenuItem>
            ) : null}
            {allFolders
              .filter((f) => f.folder.full_path !== folderPath)
              .map((f) => (
                <MenuItem key={f.folder.id} icon={<Folder />} indent={f.depth} onSelect={() => void moveImages(selectedIds(), f.folder.full_path, 'menu')}>
                  {f.folder.name}
                </MenuItem>
              ))}
            {!allFolders.some((f) => f.folder.full_path !== folderPath) && folderPath === ROOT_PATH ? (
              <p className={styles.menuEmpty}>No folders yet: create one with New Folder.</p>
            ) : null}
          </Menu>
        ) : null}
        {canStage ? (
          <Menu
            label="Stage"
            side="top"
            trigger={
              <Button variant="ghost" size="sm" icon={<Layers />} className={styles.barButton}>
                Stage
              </Button>
            }
          >
            <MenuLabel>Set stage</MenuLabel>
            {IMAGE_STATUSES.map((s) => (
              <MenuItem key={s} onSelect={() => void setStage(s)}>
                <span className={styles.status} data-status={s}>
                  <span className={styles.statusDot} aria-hidden="true" />
                  {STAGE_LABELS[s]}
                </span>
              </MenuItem>
            ))}
            <MenuSeparator />
            <MenuItem icon={<RefreshCw />} onSelect={() => void setStage('cycle')}>
              Next stage
            </MenuItem>
          </Menu>
        ) : null}
        {canArchive ? (
          <Button variant="ghost" size="sm" icon={<Archive />} className={styles.barButton} onClick={() => void archive()}>
            Archive
          </Button>
        ) : null}
        {canEdit ? (
          <Button variant="ghost" size="sm" icon={<Wand2 />} className={styles.barButton} onClick={() => setEditOpen(true)}>
            Edit
          </Button>
        ) : null}
        <Button variant="ghost" size="sm" icon={<Download />} className={styles.barButton} onClick={() => useExportDialog.getState().show()}>
          Export
        </Button>
      </SelectionBar>

      <EditDialog
        open={editOpen}
        onOpenChange={setEditOpen}
        projectId={project.id}
        selection={editOpen ? selectedImages() : []}
        folderPath={folderPath}
        onLanded={onEditLanded}
      />
      <ExportDialog project={project} selectedIds={[...selected]} folderPath={folderPath} status={status} />
    </div>
  );
}

