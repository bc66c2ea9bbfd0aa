// Models page (issue 34): the organization's models (the built-in COCO detector and its own ONNX
// and HTTP models) with their source, kind, state and classes. Owners and admins add models
// (AddModelDialog) and delete their own; everyone else sees the list with the reason they cannot.
// Below the list, PrelabelPanel starts a pre-label job on a folder and follows it.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { BrainCircuit, Plus, Trash2 } from 'lucide-react';
import type { Model } from '../../../contract/models';
import { serverMessage } from '../../api/client';
import { Badge } from '../../components/Badge';
import { Banner } from '../../components/Banner';
import { Button, IconButton } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { Page, PageHeader } from '../../components/Page';
import { Skeleton } from '../../components/Skeleton';
import { formatRelativeDate } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useDenied } from '../../stores/permissions';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toast';
import { AddModelDialog } from './AddModelDialog';
import { modelsApi } from './modelsApi';
import { PrelabelPanel } from './PrelabelPanel';
import styles from './ModelsPage.module.css';

const SOURCE_LABEL: Record<Model['source'], string> = { builtin: 'Built-in', onnx: 'ONNX', http: 'HTTP' };
const KIND_LABEL: Record<Model['kind'], string> = { detect: 'Boxes', segment: 'Masks', pose: 'Keypoints' };
const SHOWN_CLASSES = 12;

function ModelRow({ model, deleteDenied, onDelete }: { model: Model; deleteDenied: string | null; onDelete: (m: Model) => void }) {
  const shown = model.classes.slice(0, SHOWN_CLASSES).join(', ');
  const more = model.classes.length - SHOWN_CLASSES;
  return (
    <li className={styles.model} aria-label={model.name}>
      <div>
        <div className={styles.head}>
          <span className={styles.name}>{model.name}</span>
          <Badge tone={model.source === 'builtin' ? 'accent' : 'neutral'}>{SOURCE_LABEL[model.source]}</Badge>
          <Badge>{KIND_LABEL[model.kind]}</Badge>
          {model.status === 'ready' ? <Badge tone="success">Ready</Badge> : <Badge tone="warning">Not activated</Badge>}
        </div>
        <div className={styles.facts}>
          <span>
            {model.classes.length} {model.classes.length === 1 ? 'class' : 'classes'}
          </span>
          {model.input_size ? (
            <span>
              input {model.input_size} x {model.input_size}
            </span>
          ) : null}
          {model.url ? <code>{model.url}</code> : null}
          {model.filename ? <span>{model.filename}</span> : null}
          {model.license ? <span>licence {model.license}</span> : null}
          {model.created_at ? <span>added {formatRelativeDate(model.created_at)}</span> : null}
        </div>
        {model.classes.length > 0 ? (
          <p className={styles.classes}>
            {shown}
            {more > 0 ? ` and ${more} more` : ''}
          </p>
        ) : null}
        {model.status === 'pending' ? <p className={styles.pending}>The file was not uploaded, or it is not a YOLO detect or segment export. Delete it and add it again.</p> : null}
      </div>
      {model.source !== 'builtin' ? (
        <div className={styles.actions}>
          <IconButton label={`Delete ${model.name}`} icon={<Trash2 />} disabledReason={deleteDenied} disabled={Boolean(deleteDenied)} onClick={() => onDelete(model)} />
        </div>
      ) : null}
    </li>
  );
}

function DeleteModelDialog({ model, onClose, onDeleted }: { model: Model | null; onClose: () => void; onDeleted: () => Promise<unknown> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    if (!model) return;
    setBusy(true);
    setError(null);
    try {
      await modelsApi.remove(model.id);
      await onDeleted();
      toast(`Deleted ${model.name}`);
      onClose();
    } catch (err) {
      setError(serverMessage(err, 'The model could not be deleted.'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={Boolean(model)}
      onOpenChange={(o) => (!o && !busy ? onClose() : undefined)}
      tone="danger"
      icon={<Trash2 />}
      title="Delete model"
      description={model ? `Delete "${model.name}"? Its file is deleted too. Annotations it made stay.` : undefined}
      dismissible={!busy}
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy} busyLabel="Deleting..." onClick={() => void confirm()}>
            Delete
          </Button>
        </>
      }
    >
      {error ? <Banner tone="danger">{error}</Banner> : null}
    </Dialog>
  );
}

export function ModelsPage() {
  const org = useSession((s) => s.currentOrganization);
  useDocumentTitle('Models');
  const qc = useQueryClient();
  const manageDenied = useDenied('org.manage', 'add or delete models');
  const prelabelDenied = useDenied('images.review', 'pre-label images');
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Model | null>(null);
  const key = ['models', org?.id ?? ''] as const;
  const models = useQuery({ queryKey: key, queryFn: async () => (await modelsApi.list(org!.id)).models, enabled: Boolean(org) });
  const refresh = () => qc.invalidateQueries({ queryKey: key });

  return (
    <Page>
      <PageHeader
        eyebrow={<span>{org?.name}</span>}
        title="Models"
        meta={models.data ? <Badge tone="accent">{models.data.length} {models.data.length === 1 ? 'model' : 'models'}</Badge> : null}
        actions={
          <Button variant="primary" icon={<Plus />} onClick={() => setAdding(true)} disabled={Boolean(manageDenied) || !org} disabledReason={manageDenied}>
            Add Model
          </Button>
        }
      />
      {models.isPending ? (
        <div className={styles.list} aria-label="Loading models">
          <Skeleton className={styles.skeleton} />
          <Skeleton className={styles.skeleton} />
        </div>
      ) : models.isError ? (
        <Banner tone="danger" actions={<Button size="sm" variant="secondary" onClick={() => void models.refetch()}>Retry</Button>}>
          {serverMessage(models.error, 'The models could not be loaded.')}
        </Banner>
      ) : models.data.length === 0 ? (
        <EmptyState icon={<BrainCircuit />} title="No models" description="Add a model to pre-label images across your projects." />
      ) : (
        <ul className={styles.list} aria-label="Models">
          {models.data.map((m) => (
            <ModelRow key={m.id} model={m} deleteDenied={manageDenied} onDelete={setDeleting} />
          ))}
        </ul>
      )}
      {org && models.data && !prelabelDenied ? <PrelabelPanel orgId={org.id} models={models.data} /> : null}
      {org ? <AddModelDialog orgId={org.id} open={adding} onClose={() => setAdding(false)} onChanged={refresh} /> : null}
      <DeleteModelDialog model={deleting} onClose={() => setDeleting(null)} onDeleted={refresh} />
    </Page>
  );
}
