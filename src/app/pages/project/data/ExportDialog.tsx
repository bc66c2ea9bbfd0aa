// Export Dataset dialog (spec sections 2, 3 "Export options", 5, 7, 8, 9): name, format (Vellum,
// COCO, YOLO or Pascal VOC), scope (selected, all complete, current filters; default all
// complete), include images, class filter. POST /annotations/export streams the zip; the dialog
// reads the stream itself so it can show the bytes received, then saves it as {name}_{format}.zip.
// Current filters at the project root are "All images": scope `all`, every image not archived in
// every folder (not the root's own images only). Inside a folder they are "This folder", with its
// sub-folders unless "Include sub-folders" is unticked. The number of images the export will hold
// is asked of the server (POST /annotations/export/count) and shown before it starts.
// Training options (ExportOptions.tsx): a train/val/test split, YOLO's task, COCO's mask format.
// While the zip streams, the dialog shows the images the server has written (GET
// /annotations/export/progress with the export's progress_id) and the bytes received; Cancel
// aborts the download, which stops the server's work.
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { create } from 'zustand';
import { Download } from 'lucide-react';
import type { z } from 'zod';
import { DEFAULT_EXPORT_FORMAT, DEFAULT_EXPORT_SCOPE, MAX_EXPORT_NAME_LENGTH, type ExportFormat, type ExportRequest, type ExportScope, type MaskFormat, type YoloTask } from '../../../../contract/export';
import type { ImageStatus } from '../../../../contract/images';
import type { Project } from '../../../../contract/projects';
import { annotationFilterParams, hasAnnotationFilter, type AnnotationFilter } from '../../../lib/links';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { TextField } from '../../../components/TextField';
import { formatBytes } from '../../../lib/format';
import { toast } from '../../../stores/toast';
import { statusLabel } from '../../../lib/stages';
import { countExport, downloadExport, ExportError, EXPORT_MESSAGES, useExportProgress } from './exportDownload';
import { DEFAULT_SPLIT_CHOICE, defaultYoloTask, ExportPredictionsOption, ExportSplitPicker, MaskFormatPicker, splitProblem, splitRequest, YoloTaskPicker, type SplitChoice } from './ExportOptions';
import styles from './EditDialog.module.css';


/** Who opens the dialog: the project page header's Export button (the one entry point; the dialog lives with the Data tab's selection and filters). */
export const useExportDialog = create<{ open: boolean; show(): void; hide(): void }>()((set) => ({
  open: false,
  show: () => set({ open: true }),
  hide: () => set({ open: false }),
}));

const FORMATS: { id: ExportFormat; title: string; hint: string }[] = [
  { id: 'vellum', title: 'Vellum', hint: 'Lossless: every shape, class, attribute, stage and folder' },
  { id: 'coco', title: 'COCO', hint: 'annotations.json (one per split) for standard COCO tools' },
  { id: 'yolo', title: 'YOLO', hint: 'Ultralytics data.yaml and label files, for detection or segmentation' },
  { id: 'voc', title: 'Pascal VOC', hint: 'An XML file per image with every object as a pixel box' },
];

export interface ExportDialogProps {
  project: Project;
  selectedIds: string[];
  folderPath: string;
  status: ImageStatus | null;
  /** The Data tab's name search ('' none): with it, current filters cover every folder. */
  search?: string;
  /** The Data tab's class / annotation filters: with one, current filters cover every folder. */
  annotations?: AnnotationFilter;
}

// Long because it is one form: name, format, scope, images included and the class filter, and the
// streamed download's progress, share its state.
export function ExportDialog({ project, selectedIds, folderPath, status, search = '', annotations }: ExportDialogProps) {
  const open = useExportDialog((s) => s.open);
  const [name, setName] = useState(project.name);
  const [format, setFormat] = useState<ExportFormat>(DEFAULT_EXPORT_FORMAT);
  const [scope, setScope] = useState<ExportScope>(DEFAULT_EXPORT_SCOPE);
  const [includeImages, setIncludeImages] = useState(false);
  const [includePredictions, setIncludePredictions] = useState(false);
  const [subfolders, setSubfolders] = useState(true);
  const [classes, setClasses] = useState<ReadonlySet<string>>(new Set());
  const [split, setSplit] = useState<SplitChoice>(DEFAULT_SPLIT_CHOICE);
  const [yoloTask, setYoloTask] = useState<YoloTask>(defaultYoloTask(project));
  const [maskFormat, setMaskFormat] = useState<MaskFormat>('rle');
  const { busy, received, error, cancelled, progress, start, cancel, close, reset } = useExportRun(project.id);

  // Every opening starts from the defaults, with all classes and the current project name.
  useEffect(() => {
    if (!open) return;
    setName(project.name);
    setFormat(DEFAULT_EXPORT_FORMAT);
    setScope(DEFAULT_EXPORT_SCOPE);
    setIncludeImages(false);
    setSubfolders(true);
    setClasses(new Set(project.classes.map((c) => c.name)));
    setSplit(DEFAULT_SPLIT_CHOICE);
    setYoloTask(defaultYoloTask(project));
    setMaskFormat('rle');
    reset();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  // A refusal is about the options it was given: any change clears it.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => reset(), [name, format, scope, includeImages, includePredictions, classes, subfolders, split, yoloTask, maskFormat]);

  // Which images: the part of the request the count depends on.
  const selectionKey = JSON.stringify(scope === 'selected' ? selectedIds : scope === 'current_filters' ? [folderPath, status, search, subfolders, annotationFilterParams(annotations)] : []);
  const selectionBody = useMemo(
    () => selectionOf(scope, { selectedIds, folderPath, status, search, subfolders, annotations }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [scope, selectionKey],
  );
  const imageCount = useExportCount(open, project.id, selectionBody);

  const hasClasses = project.classes.length > 0;
  const selectionMissing = scope === 'selected' && selectedIds.length === 0;
  const nameBlank = !name.trim();
  const noClass = hasClasses && classes.size === 0;
  const splitInvalid = splitProblem(split) !== null;
  const disabled = busy || nameBlank || noClass || selectionMissing || splitInvalid;

  const run = () => {
    if (disabled) return;
    const body: z.input<typeof ExportRequest> = {
      project_id: project.id,
      format,
      include_images: includeImages,
      include_predictions: includePredictions,
      name: name.trim(),
      class_filter: hasClasses && classes.size < project.classes.length ? [...classes] : null,
      ...selectionBody,
      split: splitRequest(split),
      ...(format === 'yolo' ? { yolo_task: yoloTask } : {}),
      ...(format === 'coco' ? { mask_format: maskFormat } : {}),
    };
    void start(body, `${name.trim()}_${format}.zip`);
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(o) => (o ? useExportDialog.getState().show() : close())}
      title="Export Dataset"
      description={`Download ${project.name}'s annotations as a zip.`}
      icon={<Download />}
      wide
      onSubmit={run}
      footerStart={
        busy ? (
          <ExportProgressLine received={received} written={progress} />
        ) : cancelled ? (
          <p className={styles.status} role="status" data-testid="export-cancelled">
            Export cancelled: the server stopped writing it.
          </p>
        ) : error ? (
          <p className={styles.error} role="alert" data-testid="export-error">
            {error}
          </p>
        ) : selectionMissing ? (
          <p className={styles.error} role="alert">
            {EXPORT_MESSAGES.noSelection}
          </p>
        ) : null
      }
      footer={
        <>
          <Button variant="secondary" onClick={cancel}>
            {busy ? 'Cancel export' : 'Cancel'}
          </Button>
          <Button type="submit" variant="primary" icon={<Download />} busy={busy} busyLabel="Exporting..." disabled={disabled}>
            Export
          </Button>
        </>
      }
    >
      <TextField
        label="Export name"
        value={name}
        maxLength={MAX_EXPORT_NAME_LENGTH}
        disabled={busy}
        error={nameBlank ? 'Enter a name for the export' : null}
        hint={`Saved as ${name.trim() || project.name}_${format}.zip`}
        onChange={(e) => setName(e.target.value)}
      />

      <fieldset className={`${styles.options} ${styles.two}`} disabled={busy}>
        <legend className={styles.legend}>Format</legend>
        {FORMATS.map((f) => (
          <label key={f.id} className={styles.option}>
            <input type="radio" name="export-format" value={f.id} checked={format === f.id} onChange={() => setFormat(f.id)} />
            <span className={styles.optionTitle}>{f.title}</span>
            <span className={styles.optionHint}>{f.hint}</span>
          </label>
        ))}
      </fieldset>

      {format === 'yolo' ? <YoloTaskPicker value={yoloTask} onChange={setYoloTask} disabled={busy} /> : null}
      {format === 'coco' ? <MaskFormatPicker value={maskFormat} onChange={setMaskFormat} disabled={busy} /> : null}

      <ExportScopePicker
        scope={scope}
        onScope={setScope}
        subfolders={subfolders}
        onSubfolders={setSubfolders}
        selectedCount={selectedIds.length}
        folderPath={folderPath}
        status={status}
        search={search}
        annotated={hasAnnotationFilter(annotations)}
        disabled={busy}
        imageCount={imageCount}
      />

      <ExportSplitPicker value={split} onChange={setSplit} disabled={busy} />

      <label className={styles.check}>
        <input type="checkbox" checked={includeImages} disabled={busy} onChange={(e) => setIncludeImages(e.target.checked)} />
        Include image files
      </label>

      <ExportPredictionsOption checked={includePredictions} onChange={setIncludePredictions} disabled={busy} />

      <ExportClassPicker project={project} classes={classes} onChange={setClasses} disabled={busy} />
    </Dialog>
  );
}

/** One export at a time: start streams it (with a fresh progress_id), cancel aborts it (the server stops) and keeps the dialog open, close aborts and hides. */
function useExportRun(projectId: string) {
  const [busy, setBusy] = useState(false);
  const [received, setReceived] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [cancelled, setCancelled] = useState(false);
  const [progressId, setProgressId] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const progress = useExportProgress(projectId, busy ? progressId : null);

  const close = () => {
    abort.current?.abort();
    useExportDialog.getState().hide();
  };
  const cancel = () => {
    if (!abort.current) return close();
    abort.current.abort();
    setCancelled(true);
  };
  const reset = () => {
    setError(null);
    setCancelled(false);
  };
  const start = async (body: z.input<typeof ExportRequest>, fallbackName: string) => {
    setBusy(true);
    reset();
    setReceived(0);
    const controller = new AbortController();
    abort.current = controller;
    const id = crypto.randomUUID();
    setProgressId(id);
    try {
      const { filename, total } = await downloadExport({ ...body, progress_id: id }, fallbackName, controller.signal, setReceived);
      toast(`Exported ${filename} (${formatBytes(total)})`, 'success');
      useExportDialog.getState().hide();
    } catch (err) {
      if (controller.signal.aborted) return;
      setError(err instanceof ExportError ? err.message : `Export failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      if (abort.current === controller) abort.current = null;
      setBusy(false);
      setReceived(null);
      setProgressId(null);
    }
  };
  return { busy, received, error, cancelled, progress, start, cancel, close, reset };
}

/** While the zip streams: images written by the server (when it can say) and bytes received. */
function ExportProgressLine({ received, written }: { received: number | null; written: { written: number; total: number | null } | null }) {
  const fraction = written && written.total ? Math.min(1, written.written / written.total) : null;
  const images = written && written.total !== null ? `${written.written.toLocaleString()} of ${written.total.toLocaleString()} images written` : null;
  const bytes = received ? `${formatBytes(received)} received` : null;
  return (
    <div className={styles.status} role="status" aria-live="polite" data-testid="export-progress">
      <span className={styles.bar} aria-hidden="true">
        <span style={fraction === null ? { width: '100%', opacity: 0.5 } : { width: `${Math.round(fraction * 100)}%` }} />
      </span>
      <span className="tabular">{images || bytes ? [images, bytes].filter(Boolean).join(' · ') : 'Preparing export...'}</span>
    </div>
  );
}

interface SelectionInputs {
  selectedIds: string[];
  folderPath: string;
  status: ImageStatus | null;
  search: string;
  subfolders: boolean;
  annotations?: AnnotationFilter;
}

/**
 * The part of the export request that says which images: the scope, and its ids or filters.
 * Current filters at the root without a name search are every image (`all`), or every folder's
 * images of one stage; inside a folder, that folder (and its sub-folders with `subfolders`).
 */
export function selectionOf(scope: ExportScope, v: SelectionInputs): Pick<z.input<typeof ExportRequest>, 'scope' | 'image_ids' | 'filters'> {
  if (scope === 'selected') return { scope, image_ids: v.selectedIds };
  if (scope !== 'current_filters') return { scope };
  const stage = v.status ? { status: v.status } : {};
  // A class / annotation filter, like a name search, looks through every folder.
  if (hasAnnotationFilter(v.annotations)) return { scope, filters: { ...annotationFilterParams(v.annotations), ...(v.search ? { search: v.search } : {}), ...stage } };
  if (v.search) return { scope, filters: { search: v.search, ...stage } };
  if (v.folderPath === '/') return v.status ? { scope, filters: stage } : { scope: 'all' };
  return { scope, filters: { folder_path: v.folderPath, include_subfolders: v.subfolders, ...stage } };
}

/** The server's count of the images the selection holds: 'counting' while asked, null when it could not answer. */
function useExportCount(open: boolean, projectId: string, selection: ReturnType<typeof selectionOf>): number | 'counting' | null {
  const [count, setCount] = useState<number | 'counting' | null>('counting');
  useEffect(() => {
    if (!open) return;
    if (selection.scope === 'selected' && (selection.image_ids?.length ?? 0) === 0) {
      setCount(0);
      return;
    }
    const controller = new AbortController();
    setCount('counting');
    countExport({ project_id: projectId, ...selection }, controller.signal).then(
      (n) => !controller.signal.aborted && setCount(n),
      () => !controller.signal.aborted && setCount(null),
    );
    return () => controller.abort();
  }, [open, projectId, selection]);
  return count;
}

interface ScopePickerProps {
  scope: ExportScope;
  onScope(scope: ExportScope): void;
  subfolders: boolean;
  onSubfolders(on: boolean): void;
  selectedCount: number;
  folderPath: string;
  status: ImageStatus | null;
  search: string;
  /** A class / annotation filter is on (every folder). */
  annotated: boolean;
  disabled: boolean;
  imageCount: number | 'counting' | null;
}

/** Which images: the scope cards, inside a folder the sub-folders toggle, and the server's count. */
function ExportScopePicker({ scope, onScope, subfolders, onSubfolders, selectedCount, folderPath, status, search, annotated, disabled, imageCount }: ScopePickerProps) {
  const inFolder = folderPath !== '/' && !search && !annotated;
  const scopes: { id: ExportScope; title: string; hint: string }[] = [
    { id: 'selected', title: `Selected (${selectedCount.toLocaleString()})`, hint: 'The images selected in the grid' },
    { id: 'all_complete', title: 'All complete', hint: `Every image in the ${statusLabel('complete')} stage, in every folder` },
    {
      id: 'current_filters',
      title: inFolder ? 'This folder' : 'Current filters',
      hint: `${search ? `Names containing “${search}” in all folders` : annotated ? 'With the class / annotation filters, in every folder' : folderPath === '/' ? 'All images, in every folder' : folderPath}${search && annotated ? ', with the class / annotation filters' : ''}${status ? `, ${statusLabel(status)}` : ''}`,
    },
  ];
  return (
    <div className={styles.section}>
      <fieldset className={styles.options} disabled={disabled}>
        <legend className={styles.legend}>Images</legend>
        {scopes.map((s) => (
          <label key={s.id} className={styles.option}>
            <input type="radio" name="export-scope" value={s.id} checked={scope === s.id} onChange={() => onScope(s.id)} />
            <span className={styles.optionTitle}>{s.title}</span>
            <span className={styles.optionHint}>{s.hint}</span>
          </label>
        ))}
      </fieldset>
      {inFolder ? (
        <label className={styles.check}>
          <input type="checkbox" checked={subfolders} disabled={disabled || scope !== 'current_filters'} onChange={(e) => onSubfolders(e.target.checked)} />
          Include sub-folders of {folderPath}
        </label>
      ) : null}
      <p className={`${styles.optionHint} tabular`} role="status" aria-live="polite" data-testid="export-count">
        {imageCount === 'counting' ? 'Counting images...' : imageCount === null ? 'The number of images could not be counted' : `${imageCount.toLocaleString()} ${imageCount === 1 ? 'image' : 'images'} will be exported`}
      </p>
    </div>
  );
}

/** The classes to export: all by default, "Select all / none", and a check per class. */
function ExportClassPicker({ project, classes, onChange, disabled }: { project: Project; classes: ReadonlySet<string>; onChange(next: ReadonlySet<string>): void; disabled: boolean }) {
  const classesId = useId();
  const hasClasses = project.classes.length > 0;
  const noClass = hasClasses && classes.size === 0;
  return (
    <div className={styles.section}>
      <div className={styles.sectionHead}>
        <span className={styles.label} id={classesId}>
          Classes <span className={`${styles.count} tabular`}>{hasClasses ? `${classes.size} of ${project.classes.length}` : 'none defined: every annotation is exported'}</span>
        </span>
        {hasClasses ? (
          <button
            type="button"
            className={styles.linkButton}
            disabled={disabled}
            onClick={() => onChange(classes.size === project.classes.length ? new Set() : new Set(project.classes.map((c) => c.name)))}
          >
            {classes.size === project.classes.length ? 'Select none' : 'Select all'}
          </button>
        ) : null}
      </div>
      {hasClasses ? (
        <ul className={styles.classes} aria-labelledby={classesId}>
          {project.classes.map((c) => (
            <li key={c.name}>
              <label className={styles.check}>
                <input
                  type="checkbox"
                  checked={classes.has(c.name)}
                  disabled={disabled}
                  onChange={(e) => {
                    const next = new Set(classes);
                    if (e.target.checked) next.add(c.name);
                    else next.delete(c.name);
                    onChange(next);
                  }}
                />
                <span className={styles.swatch} style={{ background: c.color }} aria-hidden="true" />
                {c.name}
              </label>
            </li>
          ))}
        </ul>
      ) : null}
      {noClass ? (
        <p className={styles.error} role="alert">
          Select at least one class to export
        </p>
      ) : null}
    </div>
  );
}
