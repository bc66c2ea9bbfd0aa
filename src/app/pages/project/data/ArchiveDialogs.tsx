// The Archive tab's dialogs: Restore's progress, the images restored, and the warning before a
// permanent delete.
import { ArchiveRestore, CircleCheck, TriangleAlert, Trash2 } from 'lucide-react';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { NameList } from './Chrome';
import type { ArchiveActions } from './useArchiveActions';
import own from './ArchiveTab.module.css';

export function ArchiveDialogs({ actions }: { actions: ArchiveActions }) {
  return (
    <>
    <Dialog open={actions.restoring !== null} onOpenChange={() => undefined} dismissible={false} icon={<ArchiveRestore />} title="Restoring images" description="They return to their folders in the Data tab.">
      {actions.restoring ? (
        <div className={own.progress}>
          <span className={own.track} role="progressbar" aria-valuemin={0} aria-valuemax={actions.restoring.total} aria-valuenow={actions.restoring.current}>
            <span className={own.fill} style={{ width: `${(actions.restoring.current / actions.restoring.total) * 100}%` }} />
          </span>
          <span className="tabular">
            {actions.restoring.current.toLocaleString()} of {actions.restoring.total.toLocaleString()}
          </span>
        </div>
      ) : null}
    </Dialog>

    <Dialog
      open={actions.restored !== null}
      onOpenChange={(o) => (!o ? actions.setRestored(null) : undefined)}
      icon={<CircleCheck />}
      title="Images restored"
      description={actions.restored ? `${actions.restored.length.toLocaleString()} image${actions.restored.length === 1 ? ' is' : 's are'} back in the dataset.` : undefined}
      footer={
        <Button variant="primary" onClick={() => actions.setRestored(null)} autoFocus>
          Done
        </Button>
      }
    >
      {actions.restored ? <NameList names={actions.restored} /> : null}
    </Dialog>

    <Dialog
      open={actions.confirmDelete !== null}
      onOpenChange={(o) => (!o && !actions.deleting ? actions.setConfirmDelete(null) : undefined)}
      dismissible={!actions.deleting}
      tone="danger"
      icon={<TriangleAlert />}
      title={actions.confirmDelete ? `Delete ${actions.confirmDelete.length.toLocaleString()} image${actions.confirmDelete.length === 1 ? '' : 's'} permanently?` : 'Delete permanently?'}
      description="This cannot be undone. The image files and their annotations are deleted for good."
      footer={
        <>
          <Button variant="secondary" onClick={() => actions.setConfirmDelete(null)} disabled={actions.deleting} autoFocus>
            Cancel
          </Button>
          <Button variant="danger" icon={<Trash2 />} onClick={() => void actions.doDelete()} busy={actions.deleting} busyLabel="Deleting...">
            Delete Permanently
          </Button>
        </>
      }
    >
      {actions.confirmDelete ? <NameList names={actions.confirmDelete.map((i) => i.filename)} expandable expanded={actions.showAll} onExpand={() => actions.setShowAll(true)} /> : null}
    </Dialog>
    </>
  );
}
