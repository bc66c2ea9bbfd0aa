// The floating toolbar over a selection (spec section 4): Folder (move), Stage, Archive, Edit
// (Magic Image Edit) and Export, each shown to the roles that may use it.
import { Archive, Download, Folder, FolderInput, Home, Layers, RefreshCw, Wand2 } from 'lucide-react';
import { IMAGE_STATUSES, type ImageStatus } from '../../../../contract/images';
import { ROOT_PATH, type FolderNode } from '../../../../contract/folders';
import { Button } from '../../../components/Button';
import { useCan } from '../../../stores/permissions';
import { Menu, MenuItem, MenuLabel, MenuSeparator, SelectionBar } from './Chrome';
import { STAGE_LABELS, useDataView } from './dataView';
import { useExportDialog } from './ExportDialog';
import { flatten } from './folders';
import styles from './DataTab.module.css';

export function DataSelectionBar({
  count,
  folderPath,
  tree,
  onMove,
  onStage,
  onArchive,
  onEdit,
}: {
  count: number;
  folderPath: string;
  tree: readonly FolderNode[];
  onMove(target: string): void;
  onStage(next: ImageStatus | 'cycle'): void;
  onArchive(): void;
  onEdit(): void;
}) {
  const view = useDataView.getState;
  // Annotators and viewers see the status; reviewers and up change it (images.stage).
  const canStage = useCan('images.stage');
  // Moves of images (images.organize): annotators and up.
  const canOrganize = useCan('images.organize');
  const canArchive = useCan('images.archive');
  // Magic Image Edit makes new images: the roles that upload (images.edit).
  const canEdit = useCan('images.edit');
  const allFolders = flatten(tree);
  return (
    <SelectionBar count={count} onClear={() => view().clearSelection()}>
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
            <MenuItem icon={<Home />} onSelect={() => onMove(ROOT_PATH)}>
              All images (root)
            </MenuItem>
          ) : null}
          {allFolders
            .filter((f) => f.folder.full_path !== folderPath)
            .map((f) => (
              <MenuItem key={f.folder.id} icon={<Folder />} indent={f.depth} onSelect={() => onMove(f.folder.full_path)}>
                {f.folder.name}
              </MenuItem>
            ))}
          {!allFolders.some((f) => f.folder.full_path !== folderPath) && folderPath === ROOT_PATH ? <p className={styles.menuEmpty}>No folders yet: create one with New Folder.</p> : null}
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
            <MenuItem key={s} onSelect={() => onStage(s)}>
              <span className={styles.status} data-status={s}>
                <span className={styles.statusDot} aria-hidden="true" />
                {STAGE_LABELS[s]}
              </span>
            </MenuItem>
          ))}
          <MenuSeparator />
          <MenuItem icon={<RefreshCw />} onSelect={() => onStage('cycle')}>
            Next stage
          </MenuItem>
        </Menu>
      ) : null}
      {canArchive ? (
        <Button variant="ghost" size="sm" icon={<Archive />} className={styles.barButton} onClick={onArchive}>
          Archive
        </Button>
      ) : null}
      {canEdit ? (
        <Button variant="ghost" size="sm" icon={<Wand2 />} className={styles.barButton} onClick={onEdit}>
          Edit
        </Button>
      ) : null}
      <Button variant="ghost" size="sm" icon={<Download />} className={styles.barButton} onClick={() => useExportDialog.getState().show()}>
        Export
      </Button>
    </SelectionBar>
  );
}
