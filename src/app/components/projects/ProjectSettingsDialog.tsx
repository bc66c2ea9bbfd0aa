import { useEffect, useState } from 'react';
import { Settings2, Trash2, TriangleExclamationPoint } from 'lucide-react';
import type { Project } from '../../../contract/projects';
import { api, serverMessage } from '../../api/client';
import { qualityApi } from '../../api/quality';
import { Banner } from '../Banner';
import { Button } from '../Button';
import { Dialog } from '../Dialog';
import { TextAreaField, TextField } from '../TextField';
import { useSelection } from '../../stores/selection';
import { toast } from '../../stores/toast';
import { useCan } from '../../stores/permissions';
import { useProjectCache } from '../../stores/projectQueries';

/** A share of one as a whole percent for a field, and back (null when the text is not 0 to 100). */
const asPercent = (x: number) => String(Math.round(x * 1000) / 10);
const fromPercent = (s: string): number | null => {
  const n = Number(s);
  return s.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= 100 ? n / 100 : null;
};

/** A number field for a whole percent from 0 to 100, which says so when the text is not one. */
function PercentField({ value, onChange, ...field }: { label: string; name: string; value: string; onChange(text: string): void; disabled: boolean; hint: string }) {
  return (
    <TextField
      {...field}
      type="number"
      min={0}
      max={100}
      step="any"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={fromPercent(value) === null ? 'A percent from 0 to 100' : null}
    />
  );
}

/** Project Settings (spec section 2): name, description, the ground-truth settings (issue 36 §2), Save Changes, Delete Project. */
export function ProjectSettingsDialog({ project, onClose, onDeleted }: { project: Project | null; onClose(): void; onDeleted?(): void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [gtRate, setGtRate] = useState('0');
  const [gtPass, setGtPass] = useState('80');
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
      setGtRate(asPercent(project.gt_rate));
      setGtPass(asPercent(project.gt_pass_threshold));
      setError(null);
      setSaving(false);
      setConfirmDelete(false);
    }
  }, [project]);

  if (!project) return null;
  const rate = fromPercent(gtRate);
  const pass = fromPercent(gtPass);
  const differs = (x: number | null, y: number) => x === null || Math.abs(x - y) > 1e-6;
  const gtChanged = differs(rate, project.gt_rate) || differs(pass, project.gt_pass_threshold);
  const changed = name.trim() !== project.name || description.trim() !== (project.description ?? '').trim() || gtChanged;
  const canSave = canUpdate && Boolean(name.trim()) && rate !== null && pass !== null && changed && !saving;

  const save = async () => {
    if (!canSave) return;
    setSaving(true);
    setError(null);
    try {
      let res = await api.updateProject(project.id, { name: name.trim(), description: description.trim() || null });
      if (gtChanged && rate !== null && pass !== null) res = await qualityApi.setProjectGroundTruth(project.id, { gt_rate: rate, gt_pass_threshold: pass });
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
        <PercentField
          label="Ground-truth rate (%)"
          name="gt_rate"
          value={gtRate}
          onChange={setGtRate}
          disabled={saving || !canUpdate}
          hint="Share of the images annotators take from the queue that are ground-truth images, scored against the reviewed annotations."
        />
        <PercentField label="Ground-truth pass threshold (F1 %)" name="gt_pass_threshold" value={gtPass} onChange={setGtPass} disabled={saving || !canUpdate} hint="Analytics marks scores under it." />
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
