// The floating toolbar over a selection (spec section 4): Folder (move), Stage, Archive and Edit
// (Magic Image Edit), each shown to the roles that may use it; Assign... (issue 29) for the roles
// that assign (images.assign), with the tab's one Assign dialog. Export is the page header's
// 'Export (n)', which offers the selection among its scopes.
import { Archive, Folder, FolderInput, Home, Layers, RefreshCw, UserCheck, Wand2 } from 'lucide-react';
import type { ImageStatus } from '../../../../contract/images';
import { ROOT_PATH, type FolderNode } from '../../../../contract/folders';
import { Button } from '../../../components/Button';
import { useCan } from '../../../stores/permissions';
import { STAGE_OPTIONS } from '../../../lib/stages';
import { AssignHost, openAssign } from './AssignDialog';
import { Menu, MenuItem, MenuLabel, MenuSeparator, SelectionBar, StageEntry } from './Chrome';
import { useDataView } from '../../../stores/dataView';
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
  // Who annotates and reviews (images.assign): owners, admins and reviewers.
  const canAssign = useCan('images.assign');
  const allFolders = flatten(tree);
  return (
    <>
    {canAssign ? <AssignHost /> : null}
    <SelectionBar count={count} onClear={() => view().clearSelection()}>
      {canAssign ? (
        <Button variant="ghost" size="sm" icon={<UserCheck />} className={styles.barButton} onClick={() => openAssign({ kind: 'selection', ids: [...view().selected] })}>
          Assign…
        </Button>
      ) : null}
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
          {STAGE_OPTIONS.map((o) => (
            <MenuItem key={o.status} onSelect={() => onStage(o.status)}>
              <StageEntry option={o} />
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
    </SelectionBar>
    </>
  );
}
