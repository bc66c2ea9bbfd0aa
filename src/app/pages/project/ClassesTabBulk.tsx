// Adding many classes at once from the Classes tab (issue 33 §3): names pasted one a line, or the
// `categories` of a COCO file (a category with keypoints becomes a skeleton class). The file's
// bytes are checked before they are read (size, JSON, names: components/classes/classes.ts
// cocoCategories). The new classes may be drawn with any tool and take palette colours; names the
// project has already are left as they are, and the dialog says how many.
import { useRef, useState } from 'react';
import { FileJson, ListPlus } from 'lucide-react';
import type { ProjectClass } from '../../../contract/projects';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { cocoCategories, MAX_CATEGORIES_FILE, newClassColor, pastedClassNames, type CocoCategory } from '../../components/classes/classes';
import styles from './ClassesTab.module.css';

/** The classes `names` (and the COCO skeletons) add to `classes`, each with the next palette colour. */
export function classesFromNames(categories: readonly CocoCategory[], classes: readonly ProjectClass[]): ProjectClass[] {
  const added: ProjectClass[] = [];
  for (const c of categories) {
    const color = newClassColor([...classes, ...added]);
    added.push(c.skeleton ? { name: c.name, color, kind: 'skeleton', skeleton: c.skeleton } : { name: c.name, color });
  }
  return added;
}

export function AddClassesDialog({ open, classes, onClose, onAdd }: { open: boolean; classes: ProjectClass[]; onClose(): void; onAdd(added: ProjectClass[]): Promise<string | null> }) {
  const [text, setText] = useState('');
  const [fromFile, setFromFile] = useState<CocoCategory[] | null>(null);
  const [fileName, setFileName] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [wasOpen, setWasOpen] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setText('');
      setFromFile(null);
      setFileName(null);
      setError(null);
      setBusy(false);
    }
  }
  const skeletons = new Map((fromFile ?? []).filter((c) => c.skeleton).map((c) => [c.name.toLowerCase(), c.skeleton!]));
  const { fresh, existing } = pastedClassNames(text, classes);
  const readFile = async (file: File) => {
    setError(null);
    if (file.size > MAX_CATEGORIES_FILE) return setError(`The file is ${(file.size / 1048576).toFixed(1)} MB; a categories file may be at most ${MAX_CATEGORIES_FILE / 1048576} MB`);
    const read = cocoCategories(new Uint8Array(await file.arrayBuffer()));
    if ('error' in read) return setError(`${file.name}: ${read.error}`);
    setFromFile(read.categories);
    setFileName(file.name);
    setText(read.categories.map((c) => c.name).join('\n'));
  };
  const submit = async () => {
    if (fresh.length === 0 || busy) return;
    setBusy(true);
    setError(null);
    const failure = await onAdd(classesFromNames(fresh.map((name) => ({ name, skeleton: skeletons.get(name.toLowerCase()) })), classes));
    setBusy(false);
    if (failure) setError(failure);
    else onClose();
  };
  const summary = `${fresh.length} new class${fresh.length === 1 ? '' : 'es'}${existing.length ? `; ${existing.length} the project has already (left as they are)` : ''}${skeletons.size ? `; ${skeletons.size} with a skeleton` : ''}`;
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => (!o ? onClose() : undefined)}
      dismissible={!busy}
      icon={<ListPlus />}
      title="Add Classes from a List"
      description="Paste class names, one a line, or read the categories of a COCO file. New classes may be drawn with any tool; narrow them afterwards."
      onSubmit={() => void submit()}
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" disabled={fresh.length === 0} busy={busy} busyLabel="Adding...">
            {fresh.length > 0 ? `Add ${fresh.length} Class${fresh.length === 1 ? '' : 'es'}` : 'Add Classes'}
          </Button>
        </>
      }
    >
      <label className={styles.bulkArea}>
        <span>Class names, one a line</span>
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={10} spellCheck={false} placeholder={'person\nbicycle\ncar'} aria-describedby="bulk-summary" />
      </label>
      <div className={styles.bulkFile}>
        <input ref={fileInput} type="file" accept=".json,application/json" hidden aria-label="COCO categories file" onChange={(e) => (e.target.files?.[0] ? void readFile(e.target.files[0]) : undefined)} />
        <Button variant="secondary" size="sm" icon={<FileJson />} onClick={() => fileInput.current?.click()}>
          Read a COCO file
        </Button>
        <span className={styles.bulkNote}>{fileName ? `Read from ${fileName}` : `Its "categories" list; at most ${MAX_CATEGORIES_FILE / 1048576} MB`}</span>
      </div>
      <p id="bulk-summary" className={styles.bulkNote} aria-live="polite">
        {summary}
      </p>
      {error ? (
        <p className={styles.bulkError} role="alert">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}
