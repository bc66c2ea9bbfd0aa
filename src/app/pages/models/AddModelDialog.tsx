// Add Model (issue 34): upload an ONNX file (an Ultralytics YOLO detect or segment export: created,
// PUT to its upload URL, then activated, which reads its classes and input size) or register an
// HTTP endpoint. Each step says what it is doing; the server's refusal (unsupported_model,
// url_not_allowed, ...) is shown as it says it, and a refused upload stays listed as "Not activated".
import { useState, type FormEvent } from 'react';
import { BrainCircuit, FileUp, Globe } from 'lucide-react';
import { MODEL_KINDS, type ModelKind } from '../../../contract/models';
import { serverMessage } from '../../api/client';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { TextAreaField, TextField } from '../../components/TextField';
import { modelsApi, putModelFile } from './modelsApi';
import styles from './ModelsPage.module.css';

type Mode = 'onnx' | 'http';
type Step = 'creating' | 'uploading' | 'checking' | null;
const STEP_LABEL: Record<Exclude<Step, null>, string> = { creating: 'Registering...', uploading: 'Uploading...', checking: 'Reading the model...' };

/** Class names from a text box: one a line or separated by commas, blanks dropped. */
export function classList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

// Long because it is one form: the two sources share the name, the steps shown on the button and
// the error, and the JSX of both sets of fields is most of it.
export function AddModelDialog({ orgId, open, onClose, onChanged }: { orgId: string; open: boolean; onClose: () => void; onChanged: () => Promise<unknown> }) {
  const [mode, setMode] = useState<Mode>('onnx');
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [url, setUrl] = useState('');
  const [kind, setKind] = useState<ModelKind>('detect');
  const [classes, setClasses] = useState('');
  const [headerName, setHeaderName] = useState('');
  const [headerValue, setHeaderValue] = useState('');
  const [step, setStep] = useState<Step>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = step !== null;

  const reset = () => {
    setName('');
    setFile(null);
    setUrl('');
    setClasses('');
    setHeaderName('');
    setHeaderValue('');
    setError(null);
  };

  const submitOnnx = async () => {
    if (!file) throw new Error('Choose an .onnx file');
    setStep('creating');
    const created = await modelsApi.createOnnx(orgId, name.trim(), file);
    await onChanged();
    setStep('uploading');
    await putModelFile(created.upload_url!, created.content_type!, file);
    setStep('checking');
    await modelsApi.activate(created.model.id);
  };

  const submitHttp = async () => {
    setStep('creating');
    const headers = headerName.trim() ? { [headerName.trim()]: headerValue } : undefined;
    await modelsApi.createHttp(orgId, { name: name.trim(), url: url.trim(), kind, classes: classList(classes), headers });
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!name.trim()) return setError('Give the model a name.');
    try {
      await (mode === 'onnx' ? submitOnnx() : submitHttp());
      await onChanged();
      reset();
      onClose();
    } catch (err) {
      setError(serverMessage(err, err instanceof Error ? err.message : 'The model could not be added.'));
      await onChanged();
    } finally {
      setStep(null);
    }
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(o) => (!busy && !o ? onClose() : undefined)}
      icon={<BrainCircuit />}
      title="Add Model"
      description="Upload an Ultralytics YOLO export (.onnx, detect or segment), or connect a model server over HTTP."
      onSubmit={(e) => void submit(e)}
      dismissible={!busy}
      wide
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={busy} busyLabel={step ? STEP_LABEL[step] : undefined}>
            {mode === 'onnx' ? 'Upload Model' : 'Add Model'}
          </Button>
        </>
      }
    >
      <div className={styles.modes} role="group" aria-label="Source">
        <Button size="sm" variant={mode === 'onnx' ? 'primary' : 'secondary'} icon={<FileUp />} aria-pressed={mode === 'onnx'} onClick={() => setMode('onnx')} disabled={busy}>
          ONNX file
        </Button>
        <Button size="sm" variant={mode === 'http' ? 'primary' : 'secondary'} icon={<Globe />} aria-pressed={mode === 'http'} onClick={() => setMode('http')} disabled={busy}>
          HTTP endpoint
        </Button>
      </div>
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Our YOLO11 detector" maxLength={100} autoFocus disabled={busy} />
      {mode === 'onnx' ? (
        <div className={styles.selectRow}>
          <label className={styles.selectLabel} htmlFor="model-file">
            Model file
          </label>
          <input id="model-file" className={styles.file} type="file" accept=".onnx" disabled={busy} onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          <p className={styles.note}>Up to 250 MB. The class names and input size are read from the file&apos;s Ultralytics metadata.</p>
        </div>
      ) : (
        <>
          <TextField label="URL" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://models.example.com/predict" maxLength={2000} disabled={busy} />
          <div className={styles.selectRow}>
            <label className={styles.selectLabel} htmlFor="model-kind">
              Kind
            </label>
            <select id="model-kind" className={styles.select} value={kind} disabled={busy} onChange={(e) => setKind(e.target.value as ModelKind)}>
              {MODEL_KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </div>
          <TextAreaField label="Classes" value={classes} onChange={(e) => setClasses(e.target.value)} placeholder={'car\ntruck'} hint="One a line, or separated by commas." disabled={busy} />
          <div className={styles.headerRow}>
            <TextField label="Header" optional value={headerName} onChange={(e) => setHeaderName(e.target.value)} placeholder="Authorization" disabled={busy} />
            <TextField label="Value" optional value={headerValue} onChange={(e) => setHeaderValue(e.target.value)} placeholder="Bearer ..." type="password" disabled={busy} />
          </div>
        </>
      )}
      {error ? <Banner tone="danger">{error}</Banner> : null}
    </Dialog>
  );
}
