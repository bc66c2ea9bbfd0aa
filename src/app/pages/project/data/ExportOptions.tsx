// The Export dialog's training options (issue 32): the train/val/test split (percentages, seed,
// stratify; validated inline), YOLO's task and COCO's mask format. Each picker is controlled by
// ExportDialog.tsx, which sends the request fields `split`, `yolo_task` and `mask_format`.
import { useId } from 'react';
import type { ExportSplit, MaskFormat, YoloTask } from '../../../../contract/export';
import { classAllowsTool, type Project } from '../../../../contract/projects';
import styles from './EditDialog.module.css';
import own from './ExportOptions.module.css';

export interface SplitChoice {
  on: boolean;
  /** Percentages as typed. */
  train: string;
  val: string;
  test: string;
  seed: string;
  stratify: boolean;
}

export const DEFAULT_SPLIT_CHOICE: SplitChoice = { on: false, train: '70', val: '20', test: '10', seed: '0', stratify: true };

const percent = (v: string) => (v.trim() === '' ? 0 : Number(v));

/** Why the split cannot be sent, in words, or null when it can (or is off). */
export function splitProblem(c: SplitChoice): string | null {
  if (!c.on) return null;
  const parts = [c.train, c.val, c.test].map(percent);
  if (parts.some((p) => !Number.isFinite(p) || p < 0 || p > 100)) return 'Each percentage must be between 0 and 100';
  const sum = parts.reduce((a, b) => a + b, 0);
  if (Math.abs(sum - 100) > 1e-4) return `The percentages must add up to 100 (now ${Math.round(sum * 1000) / 1000})`;
  if (!/^\d{1,9}$/.test(c.seed.trim())) return 'The seed must be a whole number';
  return null;
}

/** The request's `split`, or undefined when off (the caller checks splitProblem first). */
export function splitRequest(c: SplitChoice): ExportSplit | undefined {
  if (!c.on) return undefined;
  const test = percent(c.test);
  return { train: percent(c.train) / 100, val: percent(c.val) / 100, ...(test > 0 ? { test: test / 100 } : {}), seed: Number(c.seed.trim()), stratify: c.stratify };
}

/** The server's default task: pose when a class is a skeleton class, detect when one is a box class (without classes, the server decides by the shapes). */
export function defaultYoloTask(project: Pick<Project, 'classes'>): YoloTask {
  if (project.classes.some((c) => c.kind === 'skeleton')) return 'pose';
  return project.classes.length === 0 || project.classes.some((c) => classAllowsTool(c, 'box')) ? 'detect' : 'segment';
}

export function ExportSplitPicker({ value, onChange, disabled }: { value: SplitChoice; onChange(next: SplitChoice): void; disabled: boolean }) {
  const id = useId();
  const problem = splitProblem(value);
  const field = (key: 'train' | 'val' | 'test' | 'seed', label: string) => (
    <label className={own.splitField}>
      <span>{label}</span>
      <input
        type="number"
        inputMode="numeric"
        min={0}
        max={key === 'seed' ? undefined : 100}
        step={key === 'seed' ? 1 : 'any'}
        value={value[key]}
        disabled={disabled}
        aria-invalid={problem !== null && key !== 'seed' ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        onChange={(e) => onChange({ ...value, [key]: e.target.value })}
      />
      {key === 'seed' ? null : <span aria-hidden="true">%</span>}
    </label>
  );
  return (
    <div className={styles.section}>
      <label className={styles.check}>
        <input type="checkbox" checked={value.on} disabled={disabled} onChange={(e) => onChange({ ...value, on: e.target.checked })} />
        Split into train / val / test
      </label>
      {value.on ? (
        <fieldset className={own.splitRow} disabled={disabled}>
          <legend className="visually-hidden">Split</legend>
          {field('train', 'Train')}
          {field('val', 'Val')}
          {field('test', 'Test')}
          {field('seed', 'Seed')}
          <label className={styles.check}>
            <input type="checkbox" checked={value.stratify} onChange={(e) => onChange({ ...value, stratify: e.target.checked })} />
            Stratify by class
          </label>
        </fieldset>
      ) : null}
      {value.on && problem ? (
        <p id={`${id}-problem`} className={styles.error} role="alert">
          {problem}
        </p>
      ) : value.on ? (
        <p className={styles.optionHint}>The same seed always gives the same split; stratified, every class with enough images is in every split.</p>
      ) : null}
    </div>
  );
}

const YOLO_TASKS: { id: YoloTask; title: string; hint: string }[] = [
  { id: 'detect', title: 'Detect', hint: 'One box per shape: polygons and masks by their bounding box' },
  { id: 'segment', title: 'Segment', hint: 'Polygons for polygons and masks; boxes as their 4 corners' },
  { id: 'pose', title: 'Pose', hint: 'Skeletons with their keypoints (kpt_shape); other shapes as boxes without keypoints' },
];

export function YoloTaskPicker({ value, onChange, disabled }: { value: YoloTask; onChange(t: YoloTask): void; disabled: boolean }) {
  return (
    <fieldset className={styles.options} disabled={disabled}>
      <legend className={styles.legend}>YOLO task</legend>
      {YOLO_TASKS.map((t) => (
        <label key={t.id} className={styles.option}>
          <input type="radio" name="export-yolo-task" value={t.id} checked={value === t.id} onChange={() => onChange(t.id)} />
          <span className={styles.optionTitle}>{t.title}</span>
          <span className={styles.optionHint}>{t.hint}</span>
        </label>
      ))}
    </fieldset>
  );
}

const MASK_FORMATS: { id: MaskFormat; title: string; hint: string }[] = [
  { id: 'rle', title: 'RLE', hint: 'Masks as compressed RLE, pixel exact' },
  { id: 'polygon', title: 'Polygons', hint: 'Masks traced into simplified polygons (holes kept by keyhole bridges)' },
];

export function MaskFormatPicker({ value, onChange, disabled }: { value: MaskFormat; onChange(f: MaskFormat): void; disabled: boolean }) {
  return (
    <fieldset className={`${styles.options} ${styles.two}`} disabled={disabled}>
      <legend className={styles.legend}>COCO masks</legend>
      {MASK_FORMATS.map((f) => (
        <label key={f.id} className={styles.option}>
          <input type="radio" name="export-mask-format" value={f.id} checked={value === f.id} onChange={() => onChange(f.id)} />
          <span className={styles.optionTitle}>{f.title}</span>
          <span className={styles.optionHint}>{f.hint}</span>
        </label>
      ))}
    </fieldset>
  );
}

/**
 * Issue 34: model predictions not yet accepted or rejected are left out of exports unless this is
 * ticked (the request's `include_predictions`); accepted predictions are exported as annotations.
 */
export function ExportPredictionsOption({ checked, onChange, disabled }: { checked: boolean; onChange: (v: boolean) => void; disabled?: boolean }) {
  const id = useId();
  return (
    <div>
      <label className={styles.check}>
        <input type="checkbox" checked={checked} disabled={disabled} aria-describedby={`${id}-hint`} onChange={(e) => onChange(e.target.checked)} />
        Include pending model predictions
      </label>
      <p id={`${id}-hint`} className={styles.optionHint}>
        Predictions nobody has accepted yet are left out unless this is ticked.
      </p>
    </div>
  );
}
