import { useEffect, useState } from 'react';
import { FolderPlus } from 'lucide-react';
import { api, serverMessage } from '../../api/client';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { TextAreaField, TextField } from '../../components/TextField';
import { toast } from '../../stores/toast';
import { useProjectCache } from '../../stores/projectQueries';

export function CreateProjectDialog({ open, onOpenChange, organizationId }: { open: boolean; onOpenChange(open: boolean): void; organizationId: string }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cache = useProjectCache();

  useEffect(() => {
    if (open) {
      setName('');
      setDescription('');
      setError(null);
      setBusy(false);
    }
  }, [open]);

  const submit = async () => {
    if (!name.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      const res = await api.createProject({
        organization_id: organizationId,
        name: name.trim(),
        description: description.trim() || null,
        annotation_types: ['box'],
        classes: [],
      });
      cache.upsert(res.project);
      toast(`Project “${res.project.name}” created`, 'success');
      onOpenChange(false);
    } catch (err) {
      setError(serverMessage(err, ''));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      dismissible={!busy}
      icon={<FolderPlus />}
      title="Create Project"
      description="A project holds the images, folders and classes of one dataset."
      onSubmit={() => void submit()}
      footer={
        <>
          <Button variant="secondary" onClick={() => onOpenChange(false)} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={busy} busyLabel="Creating..." disabled={!name.trim()}>
            Create Project
          </Button>
        </>
      }
    >
      {error !== null ? (
        <Banner tone="danger" title="Failed to create project">
          {error || 'Please try again.'}
        </Banner>
      ) : null}
      <TextField label="Project name" name="project_name" placeholder="Street scenes" value={name} onChange={(e) => setName(e.target.value)} disabled={busy} autoComplete="off" />
      <TextAreaField
        label="Description"
        name="project_description"
        optional
        placeholder="What is this dataset for?"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        disabled={busy}
      />
    </Dialog>
  );
}
