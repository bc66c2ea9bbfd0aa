// Import Dataset (issue 17): the project header's Import button and its dialog. Choose a .zip (or
// one .json / .xml), a format (detected by default), and import into the open folder; the dialog
// shows the upload, then the server's progress image by image, then the report: what was created
// and matched, and every skipped file with its reason. The import runs on the server: closing the
// dialog does not stop it, and opening it again shows where it is.
import { useEffect, useId, useRef } from 'react';
import { create } from 'zustand';
import { useQueryClient } from '@tanstack/react-query';
import { FileUp, Upload } from 'lucide-react';
import type { ImportFormat, ImportJob } from '../../../../contract/imports';
import { ROOT_PATH } from '../../../../contract/folders';
import type { Project } from '../../../../contract/projects';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { Spinner } from '../../../components/Spinner';
import { formatBytes } from '../../../lib/format';
import { useDenied } from '../../../stores/permissions';
import { serverMessage } from '../../../api/client';
import { toast } from '../../../stores/toast';
import { useDataView } from '../../../stores/dataView';
import { cancelImport, IMPORT_ACCEPT, importEnded, ImportFailure, runImport, type ImportPhase } from './importFlow';
import { ImportReportView, RecentImports } from './ImportReport';
import editStyles from './EditDialog.module.css';
import styles from './ImportDialog.module.css';

const FORMATS: { id: 'auto' | ImportFormat; title: string; hint: string }[] = [
  { id: 'auto', title: 'Detect', hint: 'Read from the files' },
  { id: 'coco', title: 'COCO', hint: 'instances JSON, Roboflow' },
  { id: 'yolo', title: 'YOLO', hint: 'Ultralytics or Darknet' },
  { id: 'voc', title: 'Pascal VOC', hint: 'Annotations/*.xml' },
  { id: 'cvat', title: 'CVAT', hint: 'CVAT for images 1.1' },
  { id: 'vellum', title: 'Vellum', hint: 'A Vellum export' },
];

interface ImportState {
  open: boolean;
  file: File | null;
  format: 'auto' | ImportFormat;
  /** The running or last import of this page; null before the first. */
  phase: ImportPhase | null;
  error: string | null;
  running: boolean;
  /** A cancel request is on its way. */
  cancelling: boolean;
  abort: AbortController | null;
  show(): void;
  hide(): void;
  reset(): void;
}

export const useImportDialog = create<ImportState>()((set, get) => ({
  open: false,
  file: null,
  format: 'auto',
  phase: null,
  error: null,
  running: false,
  cancelling: false,
  abort: null,
  show: () => set({ open: true }),
  hide: () => set({ open: false }),
  reset: () => (get().running ? undefined : set({ file: null, format: 'auto', phase: null, error: null })),
}));

function progressOf(phase: ImportPhase | null): { percent: number | null; text: string } {
  if (!phase) return { percent: null, text: '' };
  if (phase.kind === 'uploading') return { percent: phase.total ? (phase.loaded / phase.total) * 100 : 0, text: `Uploading... ${formatBytes(phase.loaded)} of ${formatBytes(phase.total)}` };
  const job: ImportJob | null = phase.job;
  if (!job || job.status === 'queued' || job.status === 'uploading') return { percent: null, text: 'Waiting for the server to start...' };
  const { done, total } = job.progress;
  if (stopping(job)) return { percent: total ? (done / total) * 100 : null, text: 'Cancelling... finishing the images in progress' };
  if (!total) return { percent: null, text: 'Reading the archive...' };
  return { percent: (done / total) * 100, text: `Importing image ${Math.min(done + 1, total).toLocaleString()} of ${total.toLocaleString()}` };
}

/** Asked to stop, not yet stopped: the server finishes the images in flight, then the report is final. */
function stopping(job: ImportJob | null): boolean {
  return Boolean(job?.cancel_requested && job.status === 'running');
}

/**
 * Cancel import: the server stops at its next image, finishes those in flight and keeps what it
 * added; the dialog says "Cancelling..." (from the answer, then each poll) until the poll sees
 * 'cancelled', then shows the final report.
 */
async function askToCancel(importId: string): Promise<void> {
  useImportDialog.setState({ cancelling: true });
  try {
    const job = await cancelImport(importId);
    const now = useImportDialog.getState().phase;
    if (now?.kind === 'working' && now.importId === job.import_id && !importEnded(job)) useImportDialog.setState({ phase: { ...now, job } });
  } catch (err) {
    toast(serverMessage(err, 'The import could not be cancelled'), 'danger');
  } finally {
    useImportDialog.setState({ cancelling: false });
  }
}

export function ImportButton({ project }: { project: Project }) {
  const annotateDenied = useDenied('annotations.write', 'import datasets');
  const uploadDenied = useDenied('images.upload', 'import datasets');
  const denied = annotateDenied ?? uploadDenied;
  return (
    <>
      <Button variant="secondary" icon={<FileUp />} onClick={() => useImportDialog.getState().show()} disabledReason={denied}>
        Import
      </Button>
      <ImportDialog project={project} />
    </>
  );
}

// Long because it is one dialog over one import: the file and format chosen, the upload, the
// server's progress and the report share its state.
function ImportDialog({ project }: { project: Project }) {
  const s = useImportDialog();
  const folderPath = useDataView((v) => v.folderPath) || ROOT_PATH;
  const qc = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const fileId = useId();
  const finished = s.phase?.kind === 'finished' ? s.phase.job : null;
  // The report replaces the running import's buttons (the focused Cancel import among them): focus goes to Done.
  const done = useRef<HTMLButtonElement>(null);
  useEffect(() => done.current?.focus(), [finished]);
  const close = () => {
    useImportDialog.getState().hide();
    if (!useImportDialog.getState().running) useImportDialog.getState().reset();
  };

  const start = async () => {
    const { file, format } = useImportDialog.getState();
    if (!file || useImportDialog.getState().running) return;
    const abort = new AbortController();
    useImportDialog.setState({ running: true, error: null, abort, phase: { kind: 'uploading', loaded: 0, total: file.size } });
    try {
      const job = await runImport({ projectId: project.id, file, format, folderPath }, abort.signal, (phase) => useImportDialog.setState({ phase }));
      // New images, classes and counts: the Data tab and the header read them again.
      void qc.invalidateQueries();
      if (!useImportDialog.getState().open) toast(`Import of ${file.name} ${job.status === 'done' ? 'finished' : job.status === 'cancelled' ? 'cancelled' : 'failed'}`, job.status === 'done' ? 'success' : job.status === 'cancelled' ? 'neutral' : 'danger');
    } catch (err) {
      if (abort.signal.aborted) useImportDialog.setState({ phase: null });
      else useImportDialog.setState({ error: err instanceof ImportFailure ? err.message : `The import failed: ${err instanceof Error ? err.message : String(err)}`, phase: null });
    } finally {
      useImportDialog.setState({ running: false, abort: null });
    }
  };

  const progress = progressOf(s.phase);
  const uploading = s.phase?.kind === 'uploading';
  const working = s.phase?.kind === 'working' ? s.phase : null;
  const cancelAsked = s.cancelling || stopping(working?.job ?? null);
  const stop = () => void (working && !cancelAsked ? askToCancel(working.importId) : undefined);
  return (
    <Dialog
      open={s.open}
      onOpenChange={(o) => (o ? useImportDialog.getState().show() : close())}
      title="Import Dataset"
      description={`Bring images and labels into ${project.name}${folderPath === ROOT_PATH ? '' : `, folder ${folderPath}`}. Labels for images already here attach by file name.`}
      icon={<Upload />}
      wide
      onSubmit={() => void start()}
      footerStart={
        s.running ? (
          <div className={editStyles.status} role="status" aria-live="polite" data-testid="import-progress">
            <span className={editStyles.bar} aria-hidden="true">
              <span style={progress.percent === null ? { width: '100%', opacity: 0.5 } : { width: `${progress.percent}%` }} />
            </span>
            <span className="tabular">{progress.text}</span>
          </div>
        ) : s.error ? (
          <p className={editStyles.error} role="alert" data-testid="import-error">
            {s.error}
          </p>
        ) : null
      }
      footer={
        finished ? (
          <>
            <Button variant="secondary" onClick={() => useImportDialog.getState().reset()}>
              Import another
            </Button>
            <Button ref={done} variant="primary" onClick={close}>
              Done
            </Button>
          </>
        ) : (
          <>
            {uploading ? (
              <Button variant="secondary" onClick={() => s.abort?.abort()}>
                Cancel upload
              </Button>
            ) : working ? (
              <>
                <Button variant="secondary" onClick={close}>
                  Close
                </Button>
                {/* While it stops the button is aria-disabled, not disabled: keyboard focus stays on it. */}
                <Button
                  variant="danger"
                  icon={cancelAsked ? <Spinner /> : undefined}
                  aria-disabled={cancelAsked || undefined}
                  aria-busy={cancelAsked || undefined}
                  data-busy={cancelAsked || undefined}
                  onClick={stop}
                  data-testid="import-cancel"
                >
                  {cancelAsked ? 'Cancelling...' : 'Cancel import'}
                </Button>
              </>
            ) : (
              <Button variant="secondary" onClick={close}>
                {s.running ? 'Close' : 'Cancel'}
              </Button>
            )}
            <Button type="submit" variant="primary" icon={<Upload />} busy={s.running && !cancelAsked} busyLabel="Importing..." disabled={!s.file || s.running}>
              Import
            </Button>
          </>
        )
      }
    >
      {finished ? (
        <ImportReportView job={finished} />
      ) : (
        <>
          <div className={styles.file}>
            <label htmlFor={fileId} className={editStyles.label}>
              Dataset file
            </label>
            <div className={styles.fileRow}>
              <Button variant="secondary" size="sm" icon={<FileUp />} disabled={s.running} onClick={() => input.current?.click()}>
                Choose file
              </Button>
              <span className={styles.fileName} data-testid="import-file-name">
                {s.file ? `${s.file.name} (${formatBytes(s.file.size)})` : 'A .zip with images and labels, or one .json / .xml file of labels'}
              </span>
            </div>
            <input
              ref={input}
              id={fileId}
              type="file"
              accept={IMPORT_ACCEPT}
              hidden
              data-testid="import-file-input"
              onChange={(e) => {
                useImportDialog.setState({ file: e.target.files?.[0] ?? null, error: null });
                e.target.value = '';
              }}
            />
          </div>
          <fieldset className={`${editStyles.options} ${styles.formats}`} disabled={s.running}>
            <legend className={editStyles.legend}>Format</legend>
            {FORMATS.map((f) => (
              <label key={f.id} className={editStyles.option}>
                <input type="radio" name="import-format" value={f.id} checked={s.format === f.id} onChange={() => useImportDialog.setState({ format: f.id })} />
                <span className={editStyles.optionTitle}>{f.title}</span>
                <span className={editStyles.optionHint}>{f.hint}</span>
              </label>
            ))}
          </fieldset>
          {s.running && !uploading ? <p className={editStyles.muted}>The import runs on the server: you can close this dialog and keep working.</p> : null}
          {!s.running ? <RecentImports projectId={project.id} onOpen={(job) => useImportDialog.setState({ phase: { kind: 'finished', job }, error: null })} /> : null}
        </>
      )}
    </Dialog>
  );
}
