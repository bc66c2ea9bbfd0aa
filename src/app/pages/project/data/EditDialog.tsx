// Magic Image Edit dialog (spec sections 2, 4 "Image edit job", 5, 8, 9): the first 5 of the
// selection (at most 100), a prompt, optional advanced settings; starts the job, polls it every 5 s
// (a failed poll is retried after 10 s) and shows the spec's progress texts. The job outlives the
// dialog: its state lives in a small store, so closing the dialog never loses the result, and when
// new images land in the folder on screen the view reloads.
import { useEffect, useId, useState } from 'react';
import { create } from 'zustand';
import { Sparkles, Wand2, X } from 'lucide-react';
import {
  DEFAULT_EDIT_GUIDANCE,
  DEFAULT_EDIT_STEPS,
  DEFAULT_EDIT_TRUE_CFG,
  EDIT_ERROR_CLEAR_MS,
  EDIT_MESSAGES,
  EDIT_POLL_MS,
  EDIT_PREFILL_COUNT,
  EDIT_RETRY_MS,
  MAX_EDIT_IMAGES,
  MAX_EDIT_PROMPT_LENGTH,
  ImageEditStartResponse,
  ImageEditStatusResponse,
  editProgressText,
} from '../../../../contract/image-edit';
import type { Image } from '../../../../contract/images';
import { request, serverMessage } from '../../../api/client';
import { Button, IconButton } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { TextAreaField, TextField } from '../../../components/TextField';
import { toast } from '../../../stores/toast';
import styles from './EditDialog.module.css';

type Phase = 'idle' | 'starting' | 'running' | 'done' | 'error';

interface EditJobState {
  phase: Phase;
  editId: string | null;
  /** The spec's progress text (section 8), or null. */
  text: string | null;
  progress: number;
  projectId: string | null;
  dialogOpen: boolean;
  set(patch: Partial<Omit<EditJobState, 'set'>>): void;
}

export const useEditJob = create<EditJobState>()((set) => ({
  phase: 'idle',
  editId: null,
  text: null,
  progress: 0,
  projectId: null,
  dialogOpen: false,
  set: (patch) => set(patch),
}));

let pollTimer: number | null = null;
let clearTimer: number | null = null;

function scheduleClear() {
  if (clearTimer !== null) window.clearTimeout(clearTimer);
  // Error texts stay 5 s (spec section 8), then the dialog is ready for another try.
  clearTimer = window.setTimeout(() => {
    clearTimer = null;
    const s = useEditJob.getState();
    if (s.phase === 'error') s.set({ phase: 'idle', text: null, progress: 0, editId: null });
  }, EDIT_ERROR_CLEAR_MS);
}

function fail(message: string) {
  useEditJob.getState().set({ phase: 'error', text: `Error: ${message}` });
  if (!useEditJob.getState().dialogOpen) toast(`Error: ${message}`, 'danger');
  scheduleClear();
}

interface StartOptions {
  projectId: string;
  imageNames: string[];
  prompt: string;
  folderPath: string;
  negativePrompt: string | null;
  steps: number;
  guidance: number;
  trueCfg: number;
  seed: number | null;
  /** Called once when the job is over and new images exist in `folderPath`. */
  onLanded(folderPath: string): void;
}

async function poll(editId: string, opts: StartOptions): Promise<void> {
  pollTimer = null;
  if (useEditJob.getState().editId !== editId) return;
  let status: ImageEditStatusResponse;
  try {
    status = await request('GET', `/image-edit/status/${encodeURIComponent(editId)}`, ImageEditStatusResponse);
  } catch {
    if (useEditJob.getState().editId !== editId) return;
    useEditJob.getState().set({ text: 'Error checking status. Please refresh page.' });
    pollTimer = window.setTimeout(() => void poll(editId, opts), EDIT_RETRY_MS);
    return;
  }
  if (useEditJob.getState().editId !== editId) return;
  const text = editProgressText(status);
  if (status.status === 'completed' || status.status === 'failed') {
    const landed = status.result?.successful_count ?? 0;
    if (landed > 0) opts.onLanded(status.result?.virtual_folder_path ?? opts.folderPath);
    if (status.status === 'failed') {
      fail(status.error ?? 'The edit failed');
      return;
    }
    useEditJob.getState().set({ phase: 'done', text, progress: 100 });
    if (!useEditJob.getState().dialogOpen) toast(text, status.result?.failed_count ? 'neutral' : 'success', 5000);
    return;
  }
  useEditJob.getState().set({ phase: 'running', text, progress: status.progress });
  pollTimer = window.setTimeout(() => void poll(editId, opts), EDIT_POLL_MS);
}

export async function startEdit(opts: StartOptions): Promise<void> {
  if (pollTimer !== null) window.clearTimeout(pollTimer);
  if (clearTimer !== null) window.clearTimeout(clearTimer);
  useEditJob.getState().set({ phase: 'starting', editId: null, text: 'Starting image editing...', progress: 0, projectId: opts.projectId });
  let started: ImageEditStartResponse;
  try {
    started = await request('POST', '/image-edit/edit', ImageEditStartResponse, {
      project_id: opts.projectId,
      image_names: opts.imageNames,
      prompt: opts.prompt,
      current_folder_path: opts.folderPath,
      negative_prompt: opts.negativePrompt,
      num_inference_steps: opts.steps,
      guidance_scale: opts.guidance,
      true_cfg_scale: opts.trueCfg,
      seed: opts.seed,
    });
  } catch (err) {
    fail(serverMessage(err, 'Could not start the edit. Please try again.'));
    return;
  }
  useEditJob.getState().set({ phase: 'running', editId: started.edit_id, text: 'Starting image editing...' });
  pollTimer = window.setTimeout(() => void poll(started.edit_id, opts), EDIT_POLL_MS);
}

/** Stops following a job (a new project page, or the user starts over); the job itself goes on. */
export function forgetEdit() {
  if (pollTimer !== null) window.clearTimeout(pollTimer);
  if (clearTimer !== null) window.clearTimeout(clearTimer);
  pollTimer = clearTimer = null;
  useEditJob.getState().set({ phase: 'idle', editId: null, text: null, progress: 0 });
}

function numberOr(raw: string, fallback: number): number {
  const n = Number(raw);
  return raw.trim() !== '' && Number.isFinite(n) ? n : fallback;
}

export interface EditDialogProps {
  open: boolean;
  onOpenChange(open: boolean): void;
  projectId: string;
  /** The selection, in grid order. */
  selection: Image[];
  folderPath: string;
  onLanded(folderPath: string): void;
}

// Long because it is one dialog over one Magic Image Edit job: the prompt, the advanced settings,
// the first images shown and the job's progress texts share its state.
export function EditDialog({ open, onOpenChange, projectId, selection, folderPath, onLanded }: EditDialogProps) {
  const job = useEditJob();
  const [names, setNames] = useState<string[]>([]);
  const [prompt, setPrompt] = useState('');
  const [touched, setTouched] = useState(false);
  const [advanced, setAdvanced] = useState(false);
  const [negative, setNegative] = useState('');
  const [steps, setSteps] = useState(String(DEFAULT_EDIT_STEPS));
  const [guidance, setGuidance] = useState(String(DEFAULT_EDIT_GUIDANCE));
  const [trueCfg, setTrueCfg] = useState(String(DEFAULT_EDIT_TRUE_CFG));
  const [seed, setSeed] = useState('');
  const listId = useId();

  // Each opening starts from the current selection: its first 5 (spec section 9).
  useEffect(() => {
    useEditJob.getState().set({ dialogOpen: open });
    if (!open) return;
    setNames(selection.slice(0, EDIT_PREFILL_COUNT).map((i) => i.filename));
    setTouched(false);
    const s = useEditJob.getState();
    if (s.phase === 'done' || s.phase === 'error' || s.projectId !== projectId) forgetEdit();
    // Only when the dialog opens: later selection changes do not rewrite the list under the user.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const busy = job.phase === 'starting' || job.phase === 'running';
  const promptError = touched && !prompt.trim() ? EDIT_MESSAGES.promptRequired : null;
  const imagesError = names.length === 0 ? EDIT_MESSAGES.noImages : names.length > MAX_EDIT_IMAGES ? EDIT_MESSAGES.tooMany : null;
  const canStart = !busy && !imagesError && prompt.trim().length > 0;
  const more = selection.filter((i) => !names.includes(i.filename));

  const submit = () => {
    setTouched(true);
    if (!canStart) return;
    void startEdit({
      projectId,
      imageNames: names,
      prompt: prompt.trim(),
      folderPath,
      negativePrompt: negative.trim() || null,
      steps: Math.round(numberOr(steps, DEFAULT_EDIT_STEPS)),
      guidance: numberOr(guidance, DEFAULT_EDIT_GUIDANCE),
      trueCfg: numberOr(trueCfg, DEFAULT_EDIT_TRUE_CFG),
      seed: seed.trim() === '' ? null : Math.max(0, Math.round(numberOr(seed, 0))),
      onLanded,
    });
  };

  const tone = job.phase === 'error' ? 'danger' : job.phase === 'done' ? 'success' : 'accent';
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Magic Image Edit"
      description="Describe an edit; each image gets an edited copy in this folder, with its labels carried over."
      icon={<Wand2 />}
      wide
      onSubmit={submit}
      footerStart={
        job.text ? (
          <div className={styles.status} data-tone={tone} role="status" aria-live="polite" data-testid="edit-progress">
            {busy ? <span className={styles.bar} aria-hidden="true"><span style={{ width: `${Math.max(4, job.progress)}%` }} /></span> : null}
            <span className={styles.statusText}>{job.text}</span>
          </div>
        ) : null
      }
      footer={
        <>
          <Button variant="secondary" onClick={() => onOpenChange(false)}>
            {busy || job.phase === 'done' ? 'Close' : 'Cancel'}
          </Button>
          <Button type="submit" variant="primary" icon={<Sparkles />} busy={busy} busyLabel="Editing..." disabled={!canStart}>
            Generate
          </Button>
        </>
      }
    >
      <div className={styles.section}>
        <div className={styles.sectionHead}>
          <span className={styles.label} id={listId}>
            Images <span className={`${styles.count} tabular`}>{names.length} of {MAX_EDIT_IMAGES} max</span>
          </span>
          {more.length > 0 && names.length < MAX_EDIT_IMAGES ? (
            <Button
              variant="ghost"
              size="sm"
              disabled={busy}
              onClick={() => setNames([...names, ...more.map((i) => i.filename)].slice(0, MAX_EDIT_IMAGES))}
            >
              Add {Math.min(more.length, MAX_EDIT_IMAGES - names.length).toLocaleString()} more selected
            </Button>
          ) : null}
        </div>
        {names.length ? (
          <ul className={styles.chips} aria-labelledby={listId}>
            {names.map((n) => (
              <li key={n} className={styles.chip}>
                <span className={styles.chipName} title={n}>
                  {n}
                </span>
                <IconButton
                  label={`Remove ${n}`}
                  icon={<X />}
                  className={styles.chipRemove}
                  disabled={busy}
                  showTooltip={false}
                  onClick={() => setNames(names.filter((x) => x !== n))}
                />
              </li>
            ))}
          </ul>
        ) : (
          <p className={styles.error} role="alert">
            {EDIT_MESSAGES.noImages}
          </p>
        )}
      </div>

      <TextAreaField
        label="Prompt"
        placeholder="e.g. flip horizontally and make it night"
        value={prompt}
        maxLength={MAX_EDIT_PROMPT_LENGTH}
        rows={3}
        autoFocus
        disabled={busy}
        error={promptError}
        hint="The built-in editor understands brighter, darker, contrast, grayscale, sepia, blur, sharpen, noise, night, fog, rain, snow, sunset, flips and rotations, combined with “and”."
        onChange={(e) => setPrompt(e.target.value)}
        onBlur={() => setTouched(true)}
        onKeyDown={(e) => {
          // Enter confirms (spec section 2); Shift+Enter adds a line.
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
      />

      <div className={styles.section}>
        <button type="button" className={styles.disclosure} aria-expanded={advanced} onClick={() => setAdvanced(!advanced)}>
          Advanced settings
        </button>
        {advanced ? (
          <div className={styles.grid}>
            <div className={styles.wide}>
              <TextField label="Negative prompt" optional value={negative} disabled={busy} maxLength={MAX_EDIT_PROMPT_LENGTH} onChange={(e) => setNegative(e.target.value)} />
            </div>
            <TextField label="Steps" type="number" inputMode="numeric" min={1} max={500} value={steps} disabled={busy} onChange={(e) => setSteps(e.target.value)} />
            <TextField label="Guidance" type="number" inputMode="decimal" min={0} step={0.1} value={guidance} disabled={busy} onChange={(e) => setGuidance(e.target.value)} />
            <TextField label="True CFG" type="number" inputMode="decimal" min={0} step={0.1} value={trueCfg} disabled={busy} onChange={(e) => setTrueCfg(e.target.value)} />
            <TextField label="Seed" type="number" inputMode="numeric" min={0} optional placeholder="Random" value={seed} disabled={busy} onChange={(e) => setSeed(e.target.value)} hint="The same seed gives the same result." />
          </div>
        ) : null}
      </div>
    </Dialog>
  );
}
