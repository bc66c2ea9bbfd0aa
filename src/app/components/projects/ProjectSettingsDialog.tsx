import { useEffect, useState } from 'react';
import { Settings2, Trash2, TriangleExclamationPoint } from 'lucide-react';
import type { Project } from '../../../contract/projects';
import { api, serverMessage } from '../../api/client';
import { Banner } from '../Banner';
import { Button } from '../Button';
import { Dialog } from '../Dialog';
import { TextAreaField, TextField } from '../TextField';
import { useSelection } from '../../stores/selection';
import { toast } from '../../stores/toast';
import { useCan } from '../../stores/permissions';
import { useProjectCache } from '../../stores/projectQueries';

/** Project Settings (spec section 2): name, description, Save Changes, Delete Project. */
export function ProjectSettingsDialog({ project, onClose, onDeleted }: { project: Project | null; onClose(): void; onDeleted?(): void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const cache = useProjectCache();
  const updateSelection = useSelection((s) => s.update);
  // The server decides (403); the dialog only offers what the role allows.
  const canUpdate = useCan('project.update');
  const canDelete = useCan('project.delete');

  useEffect(() => {
    if (project) {
      setName(project.name);
      setDescription(project.description ?? '');
      setError(null);
      setSaving(false);
      setConfirmDelete(false);
    }
  }, [project]);

  if (!project) return null;
  const changed = name.trim() !== project.name || description.trim() !== (project.description ?? '').trim();
  const canSave = canUpdate && Boolean(name.trim()) && changed && !saving;

  const save = async () => {
    if (!canSave) return;
    setSaving(true);
    setError(null);
    try {
      const res = await api.updateProject(project.id, { name: name.trim(), description: description.trim() || null });
      cache.upsert(res.project);
      updateSelection(res.project);
      toast('Project settings saved', 'success');
      onClose();
    } catch (err) {
      setError(serverMessage(err, 'Failed to save changes. Please try again.'));
      setSaving(false);
    }
  };

  return (
    <>
      <Dialog
        open={!confirmDelete}
        onOpenChange={(open) => (!open ? onClose() : undefined)}
        dismissible={!saving}
        icon={<Settings2 />}
        title="Project Settings"
        description={`Settings for “${project.name}”.`}
        onSubmit={() => void save()}
        footerStart={
          <Button variant="dangerGhost" icon={<Trash2 />} onClick={() => setConfirmDelete(true)} disabled={saving || !canDelete}>
            Delete Project
          </Button>
        }
        footer={
          <>
            <Button variant="secondary" onClick={onClose} disabled={saving}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" busy={saving} busyLabel="Saving..." disabled={!canSave}>
              Save Changes
            </Button>
          </>
        }
      >
        {error ? <Banner tone="danger">{error}</Banner> : null}
        <TextField label="Project name" name="project_name" value={name} onChange={(e) => setName(e.target.value)} disabled={saving || !canUpdate} autoComplete="off" />
        <TextAreaField label="Description" name="project_description" optional value={description} onChange={(e) => setDescription(e.target.value)} disabled={saving || !canUpdate} />
      </Dialog>
      <DeleteProjectDialog
        project={project}
        open={confirmDelete}
        onCancel={() => setConfirmDelete(false)}
        onDeleted={() => {
          onClose();
          onDeleted?.();
        }}
      />
    </>
  );
}

export function DeleteProjectDialog({ project, open, onCancel, onDeleted }: { project: Project; open: boolean; onCancel(): void; onDeleted(): void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cache = useProjectCache();
  const selection = useSelection();

  useEffect(() => {
    if (open) {
      setBusy(false);
      setError(null);
    }
  }, [open]);

  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.deleteProject(project.id);
      cache.remove(project);
      if (selection.project?.id === project.id) selection.clear();
      toast(`Project “${project.name}” deleted`, 'success');
      onDeleted();
    } catch (err) {
      setError(serverMessage(err, 'Failed to delete project'));
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => (!next ? onCancel() : undefined)}
      dismissible={!busy}
      tone="danger"
      icon={<TriangleExclamationPoint />}
      title="Delete project?"
      description={
        <>
          <strong>{project.name}</strong> and all of its images, folders and annotations will be deleted permanently. This cannot be undone.
        </>
      }
      footer={
        <>
          <Button variant="secondary" onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
          <Button variant="danger" onClick={() => void remove()} busy={busy} busyLabel="Deleting...">
            Delete Project
          </Button>
        </>
      }
    >
      {error ? <Banner tone="danger">{error}</Banner> : null}
    </Dialog>
  );
}
