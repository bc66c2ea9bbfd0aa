// Pre-label a folder (issue 34 §3): pick a project, a folder (its sub-folders included) and a model,
// a minimum score (the model's suggestion first: the built-in detector scores low, docs/models.md),
// which model class each project class takes, whether to add the classes the project lacks and to
// skip images already annotated. Starting answers a job, which PrelabelProgress polls: a progress
// bar, Cancel, then the report (counts and each skipped image with its reason).
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Wand2 } from 'lucide-react';
import type { Model } from '../../../contract/models';
import type { FolderNode } from '../../../contract/folders';
import { suggestedMinScore, type PrelabelJob } from '../../../contract/prelabel';
import { api, serverMessage } from '../../api/client';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { TextField } from '../../components/TextField';
import { useDenied } from '../../stores/permissions';
import { prelabelApi } from './modelsApi';
import styles from './PrelabelPanel.module.css';

const NO_CLASS = '';

/** Every folder of the tree, depth first, with its depth for the indent. */
function flatFolders(nodes: readonly FolderNode[], depth = 0): { path: string; label: string }[] {
  return nodes.flatMap((n) => [{ path: n.full_path, label: `${'\u00a0\u00a0'.repeat(depth)}${n.name} (${n.total_image_count})` }, ...flatFolders(n.children, depth + 1)]);
}

/** class_map from the page's choice (project class <- model class); same-name pairs need no entry. */
export function classMapOf(choice: Record<string, string>): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [projectClass, modelClass] of Object.entries(choice)) if (modelClass && modelClass !== projectClass) map[modelClass] = projectClass;
  return map;
}

function Select({ label, value, onChange, disabled, children }: { label: string; value: string; onChange: (v: string) => void; disabled?: boolean; children: React.ReactNode }) {
  const id = useId();
  return (
    <div className={styles.field}>
      <label className={styles.label} htmlFor={id}>
        {label}
      </label>
      <select id={id} className={styles.select} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
        {children}
      </select>
    </div>
  );
}

// Long because it is one form: the project, folder, model and class choices depend on each other
// and share the start's busy state and error.
export function PrelabelPanel({ orgId, models }: { orgId: string; models: readonly Model[] }) {
  const runnable = models.filter((m) => m.status === 'ready');
  const projects = useQuery({ queryKey: ['projects', orgId], queryFn: async () => (await api.listProjects(orgId)).projects });
  const [projectId, setProjectId] = useState('');
  const [folder, setFolder] = useState('/');
  const [modelId, setModelId] = useState(runnable[0]?.id ?? '');
  const [minScore, setMinScore] = useState(String(suggestedMinScore(runnable[0]?.id ?? '')));
  const [choice, setChoice] = useState<Record<string, string>>({});
  const [createMissing, setCreateMissing] = useState(false);
  const [skipAnnotated, setSkipAnnotated] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const formId = useId();
  const classesDenied = useDenied('classes.edit', 'add classes to a project');
  const [jobId, setJobId] = useState<string | null>(null);

  const project = projects.data?.find((p) => p.id === projectId) ?? projects.data?.[0];
  const model = runnable.find((m) => m.id === modelId) ?? runnable[0];
  const folders = useQuery({ queryKey: ['folders', project?.id, orgId], queryFn: () => api.listFolders(project!.id, orgId), enabled: Boolean(project) });
  const folderOptions = useMemo(() => flatFolders(folders.data?.folders ?? []), [folders.data]);

  // A new project or model: each project class takes the model class of its name, when there is one.
  useEffect(() => {
    if (!project || !model) return;
    setChoice(Object.fromEntries(project.classes.map((c) => [c.name, model.classes.includes(c.name) ? c.name : NO_CLASS])));
  }, [project, model]);

  const score = Number(minScore);
  const scoreProblem = minScore.trim() === '' || !Number.isFinite(score) || score < 0 || score > 1 ? 'A number from 0 to 1' : null;

  const start = async (e: FormEvent) => {
    e.preventDefault();
    if (!project || !model || scoreProblem) return;
    setBusy(true);
    setError(null);
    try {
      const started = await prelabelApi.start(project.id, {
        model_id: model.id,
        folder_path: folder,
        class_map: classMapOf(choice),
        create_missing_classes: createMissing && !classesDenied,
        skip_annotated: skipAnnotated,
        min_score: score,
      });
      setJobId(started.job_id);
    } catch (err) {
      setError(serverMessage(err, 'The pre-label job could not be started.'));
    } finally {
      setBusy(false);
    }
  };

  if (runnable.length === 0) return null;
  return (
    <section className={styles.panel} aria-labelledby="prelabel-title">
      <h2 id="prelabel-title" className={styles.title}>
        Pre-label a folder
      </h2>
      <p className={styles.note}>The model draws on every image of the folder and its sub-folders. What it draws waits in the editor for someone to accept or reject it.</p>
      <form className={styles.form} onSubmit={(e) => void start(e)}>
        <div className={styles.row}>
          <Select label="Project" value={project?.id ?? ''} onChange={(v) => { setProjectId(v); setFolder('/'); }} disabled={busy || !projects.data?.length}>
            {(projects.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </Select>
          <Select label="Folder" value={folder} onChange={setFolder} disabled={busy || !project}>
            <option value="/">All folders ({folders.data?.total_image_count ?? 0})</option>
            {folderOptions.map((f) => (
              <option key={f.path} value={f.path}>
                {f.label}
              </option>
            ))}
          </Select>
          <Select label="Model" value={model?.id ?? ''} onChange={(v) => { setModelId(v); setMinScore(String(suggestedMinScore(v))); }} disabled={busy}>
            {runnable.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </Select>
          <TextField
            label="Minimum score"
            type="number"
            min={0}
            max={1}
            step={0.05}
            value={minScore}
            onChange={(e) => setMinScore(e.target.value)}
            error={scoreProblem ?? undefined}
            hint={model?.source === 'builtin' ? 'The built-in detector scores low: 0.2 finds 71% of objects, 0.4 only 34%.' : 'From 0 to 1.'}
            disabled={busy}
          />
        </div>
        {project && project.classes.length > 0 && model ? (
          <fieldset className={styles.classMap} disabled={busy}>
            <legend className={styles.label}>Classes: which model class each project class takes</legend>
            {project.classes.map((c) => (
              <Select key={c.name} label={c.name} value={choice[c.name] ?? NO_CLASS} onChange={(v) => setChoice((old) => ({ ...old, [c.name]: v }))}>
                <option value={NO_CLASS}>None</option>
                {model.classes.map((mc) => (
                  <option key={mc} value={mc}>
                    {mc}
                  </option>
                ))}
              </Select>
            ))}
          </fieldset>
        ) : null}
        <label className={styles.check} title={classesDenied ?? undefined}>
          <input type="checkbox" checked={createMissing && !classesDenied} disabled={busy || Boolean(classesDenied)} aria-describedby={classesDenied ? `${formId}-classes-denied` : undefined} onChange={(e) => setCreateMissing(e.target.checked)} />
          Add the model&apos;s other classes to the project
        </label>
        {classesDenied ? (
          <p id={`${formId}-classes-denied`} className={styles.note}>
            {classesDenied}. Predictions of classes the project lacks are left out, and the report counts them.
          </p>
        ) : null}
        <label className={styles.check}>
          <input type="checkbox" checked={skipAnnotated} disabled={busy} onChange={(e) => setSkipAnnotated(e.target.checked)} />
          Skip images that already have annotations
        </label>
        {error ? <Banner tone="danger">{error}</Banner> : null}
        <div>
          <Button type="submit" variant="primary" icon={<Wand2 />} busy={busy} busyLabel="Starting..." disabled={!project || !model || Boolean(scoreProblem)}>
            Start pre-labelling
          </Button>
        </div>
      </form>
      {jobId ? <PrelabelProgress key={jobId} jobId={jobId} /> : null}
    </section>
  );
}

const ENDED: readonly PrelabelJob['status'][] = ['done', 'failed', 'cancelled'];
const STATUS_LABEL: Record<PrelabelJob['status'], string> = { queued: 'Waiting to start', running: 'Running', done: 'Done', failed: 'Failed', cancelled: 'Cancelled' };

/** A job's progress (polled each second until it ends), its Cancel, and its report. */
export function PrelabelProgress({ jobId }: { jobId: string }) {
  const job = useQuery({
    queryKey: ['prelabel', jobId],
    queryFn: () => prelabelApi.get(jobId),
    refetchInterval: (q) => (q.state.data && ENDED.includes(q.state.data.status) ? false : 1000),
  });
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = async () => {
    setCancelling(true);
    try {
      await prelabelApi.cancel(jobId);
      await job.refetch();
    } catch (err) {
      setError(serverMessage(err, 'The job could not be cancelled.'));
    } finally {
      setCancelling(false);
    }
  };
  const j = job.data;
  if (!j) return job.isError ? <Banner tone="danger">{serverMessage(job.error, 'The job could not be read.')}</Banner> : null;
  const percent = j.progress.total ? Math.round((j.progress.done / j.progress.total) * 100) : 100;
  const ended = ENDED.includes(j.status);
  return (
    <div className={styles.job} aria-live="polite">
      <div className={styles.jobHead}>
        <span className={styles.status}>{STATUS_LABEL[j.status]}</span>
        <span className={styles.count}>
          {j.progress.done} of {j.progress.total} {j.progress.total === 1 ? 'image' : 'images'}
        </span>
        {!ended ? (
          <Button size="sm" variant="secondary" busy={cancelling} busyLabel="Cancelling..." onClick={() => void cancel()}>
            Cancel
          </Button>
        ) : null}
      </div>
      <span className={styles.track} role="progressbar" aria-label="Pre-label progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <span className={styles.fill} style={{ width: `${percent}%` }} />
      </span>
      {error ? <Banner tone="danger">{error}</Banner> : null}
      {j.error ? <Banner tone="danger">{j.error}</Banner> : null}
      {ended ? (
        <div className={styles.report} aria-label="Pre-label report">
          <p>
            {j.report.predictions} {j.report.predictions === 1 ? 'prediction' : 'predictions'} on {j.report.images} {j.report.images === 1 ? 'image' : 'images'}.
            {j.report.skipped_total > 0 ? ` ${j.report.skipped_total} ${j.report.skipped_total === 1 ? 'note' : 'notes'}:` : ''}
          </p>
          {j.report.skipped.length > 0 ? (
            <ul className={styles.skipped}>
              {j.report.skipped.map((s) => (
                <li key={s.image_id} title={`Image ${s.image_id}`}>
                  <span className={styles.skippedName}>{s.filename ?? 'A deleted image'}</span>: {s.reason}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
