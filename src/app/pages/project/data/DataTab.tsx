// Data tab 'Manage Dataset' (spec sections 2, 4, 5, 8, 9): counter, search by file name, status filter, sort, folder
// breadcrumb with Back and a 'Back to parent' drop tile, folder and image tiles in a virtualised
// grid with infinite loading, selection, the floating toolbar, drag and drop, desktop file drop.
// This file lays the tab out and wires its parts: the head (DataHeader), the path (FolderPath),
// the grid (DataGrid, useGridItems), the selection (useTileSelection, DataSelectionBar), what is
// done to images and folders (useImageActions, useFolderActions) and desktop files (useFileDrop).
import { useEffect, useMemo, useState } from 'react';
import { Ban, UploadCloud } from 'lucide-react';
import { parentFolderPath } from '../../../../contract/folders';
import type { Project } from '../../../../contract/projects';
import { useCan, useDenied } from '../../../stores/permissions';
import { showAlert } from './alerts';
import { ClassPanel } from './ClassPanel';
import { DataGrid } from './DataGrid';
import { DataHeader } from './DataHeader';
import { DataSelectionBar } from './DataSelectionBar';
import { useDataView } from '../../../stores/dataView';
import { EditDialog } from './EditDialog';
import { ExportDialog } from './ExportDialog';
import { FolderPath } from './FolderPath';
import { folderName, useFolders } from './folders';
import { FolderTile, ImageTile, ParentTile, type DropPayload } from './Tiles';
import { useFileDrop } from './useFileDrop';
import { useFolderActions } from './useFolderActions';
import { useGridItems, type Item } from './useGridItems';
import { useImageActions } from './useImageActions';
import { useImageList } from './useImageList';
import { useTileSelection } from './useTileSelection';
import { readTileShapesChoice, TileShapes, writeTileShapesChoice } from './TileShapes';
import { useProjectRefresh } from './useProjectRefresh';
import { TilePeople, useWatchTiles } from './tilePeople';
import styles from './DataTab.module.css';
import { looksInEveryFolder } from '../../../lib/links';

export { foldersKey, useFolders } from './folders';

// Long because it wires every part of the tab to the same view, list, selection and actions; each
// part lives in its own file.
export function DataTab({ project, orgId, onUpload }: { project: Project; orgId: string; onUpload(files: File[]): void }) {
  const { folderPath, status, search, sort, assignee, annotations, selected, reloadToken } = useDataView();
  const view = useDataView.getState;
  const everyFolder = looksInEveryFolder({ search, assignee, annotations });
  const list = useImageList({ projectId: project.id, orgId, folderPath, status, search, sort, assignee, annotations, archived: false, reloadToken });
  const folders = useFolders(project.id, orgId);
  const tree = folders.data?.folders ?? [];
  const [editOpen, setEditOpen] = useState(false);
  const [showShapes, setShowShapes] = useState(readTileShapesChoice);
  const classColors = useMemo(() => new Map(project.classes.map((c) => [c.name, c.color])), [project.classes]);
  // What the role may do here (the rule: src/app/stores/permissions.ts). New Folder, a header
  // button, stays disabled with the reason; toolbar actions, tile actions and drags are hidden;
  // a desktop file drop is refused with the reason.
  // Annotators and viewers see the status; reviewers and up change it (images.stage).
  const canStage = useCan('images.stage');
  // Folders, their names, moves of images and folders (images.organize): annotators and up.
  const canOrganize = useCan('images.organize');
  const folderDenied = useDenied('images.organize', 'create folders');
  const uploadDenied = useDenied('images.upload', 'upload images');

  // A failed folder load is an alert (spec section 8) and an error state with a retry.
  useEffect(() => {
    if (list.error) showAlert('Failed to load folder contents. Please try again.');
  }, [list.error]);

  const folderActions = useFolderActions({ projectId: project.id, folderPath });
  const { renamingId, setRenamingId } = folderActions;
  const imageActions = useImageActions({ projectId: project.id, orgId, folderPath, status, search, list });
  const { selectedIds } = imageActions;
  const { items, childFolders, onRange, visibleImageIds } = useGridItems({ orgId, folderPath, searching: everyFolder, tree, hiddenFolders: folderActions.hiddenFolders, images: list.images });
  const { toggle, activate } = useTileSelection(list.images);
  // Who has the images on screen open in the editor (small avatars on their tiles).
  useWatchTiles(project.id, visibleImageIds);
  useProjectRefresh(project.id); // an import that ends anywhere reloads the grid and counts (live project_changed)
  const { fileOver, dropHandlers } = useFileDrop({ uploadDenied, onUpload });
  const selecting = selected.size > 0;

  const onDropTo = (target: string) => (payload: DropPayload) => {
    if (payload.folderId) void folderActions.moveFolder(payload.folderId, target);
    else void imageActions.moveImages(payload.imageIds, target, 'drag');
  };
  const parentPath = parentFolderPath(folderPath);
  const renderItem = (it: Item) =>
    it.kind === 'parent' ? (
      <ParentTile label={folderName(parentPath)} onOpen={() => view().openFolder(parentPath)} onDrop={canOrganize ? onDropTo(parentPath) : undefined} />
    ) : it.kind === 'folder' ? (
      <FolderTile
        folder={it.folder}
        renaming={canOrganize && renamingId === it.folder.id}
        onOpen={() => view().openFolder(it.folder.full_path)}
        onRenameStart={canOrganize ? () => setRenamingId(it.folder.id) : undefined}
        onRename={(name) => void folderActions.renameFolder(it.folder, name)}
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
        onCycleStatus={canStage ? () => imageActions.cycleStatus(it.image) : undefined}
        showFolder={everyFolder}
        people={<TilePeople imageId={it.image.id} filename={it.image.filename} />}
        overlay={showShapes ? <TileShapes image={it.image} projectId={project.id} colors={classColors} /> : undefined}
      />
    );

  return (
    <div className={styles.data} {...dropHandlers} data-file-over={fileOver || undefined}>
      <DataHeader list={list} status={status} sort={sort} creating={folderActions.creating} folderDenied={folderDenied} onCreateFolder={() => void folderActions.createFolder()} />
      <FolderPath folderPath={folderPath} search={search} assignee={assignee} annotations={annotations} />
      <div className={styles.body}>
        <div className={styles.main}>
          <DataGrid
            list={list}
            items={items}
            folderPath={folderPath}
            status={status}
            search={search}
            hasFolders={childFolders.length > 0}
            uploadDenied={uploadDenied}
            onUpload={onUpload}
            onRange={onRange}
            renderItem={renderItem}
          />
        </div>
        <ClassPanel
          projectId={project.id}
          classes={project.classes}
          filter={annotations}
          reloadToken={reloadToken}
          showShapes={showShapes}
          onShowShapes={(on) => {
            setShowShapes(on);
            writeTileShapesChoice(on);
          }}
        />
      </div>

      {fileOver ? (
        <div className={styles.dropOverlay} data-refused={uploadDenied ? true : undefined} aria-hidden="true">
          {uploadDenied ? <Ban /> : <UploadCloud />}
          <span>{uploadDenied ?? `Drop to upload to ${folderName(folderPath)}`}</span>
        </div>
      ) : null}

      <DataSelectionBar
        count={selected.size}
        folderPath={folderPath}
        tree={tree}
        onMove={(target) => void imageActions.moveImages(selectedIds(), target, 'menu')}
        onStage={(next) => void imageActions.setStage(next)}
        onArchive={() => void imageActions.archive()}
        onEdit={() => setEditOpen(true)}
      />

      <EditDialog
        open={editOpen}
        onOpenChange={setEditOpen}
        projectId={project.id}
        selection={editOpen ? imageActions.selectedImages() : []}
        folderPath={folderPath}
        onLanded={imageActions.onEditLanded}
      />
      <ExportDialog project={project} selectedIds={[...selected]} folderPath={folderPath} status={status} search={search} annotations={annotations} />
    </div>
  );
}
