// The Add Class dialog (spec sections 2 and 5): name, annotation type and a 5-column colour grid.
// Used by the Classes tab and by the editor ('Add New {type} Class').
import { useRef, useState, type KeyboardEvent } from 'react';
import { Check, Tag } from 'lucide-react';
import { ANNOTATION_TYPES, CLASS_PALETTE, type AnnotationType, type ProjectClass } from '../../../contract/projects';
import { Button } from '../Button';
import { Dialog } from '../Dialog';
import { TextField } from '../TextField';
import { newClassColor } from './classes';
import styles from './classes.module.css';

export const TYPE_LABELS: Record<AnnotationType, string> = { box: 'Box', polygon: 'Polygon', polyline: 'Polyline', keypoint: 'Keypoint' };

export function ColorGrid({ value, onChange, label }: { value: string; onChange(color: string): void; label: string }) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const index = Math.max(0, CLASS_PALETTE.findIndex((c) => c.toLowerCase() === value.toLowerCase()));
  const onKey = (e: KeyboardEvent<HTMLButtonElement>, i: number) => {
    const delta = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : e.key === 'ArrowDown' ? 5 : e.key === 'ArrowUp' ? -5 : 0;
    if (!delta) return;
    e.preventDefault();
    const next = (i + delta + CLASS_PALETTE.length) % CLASS_PALETTE.length;
    onChange(CLASS_PALETTE[next]);
    refs.current[next]?.focus();
  };
  return (
    <div className={styles.grid} role="radiogroup" aria-label={label}>
      {CLASS_PALETTE.map((color, i) => {
        const checked = i === index && CLASS_PALETTE[i].toLowerCase() === value.toLowerCase();
        return (
          <button
            key={color}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="radio"
            aria-checked={checked}
            aria-label={`Colour ${color}`}
            tabIndex={i === index ? 0 : -1}
            className={styles.gridSwatch}
            style={{ background: color }}
            onClick={() => onChange(color)}
            onKeyDown={(e) => onKey(e, i)}
          >
            {checked ? <Check aria-hidden="true" /> : null}
          </button>
        );
      })}
    </div>
  );
}

export interface AddClassDialogProps {
  open: boolean;
  classes: ProjectClass[];
  onClose(): void;
  /** Resolves to the server's refusal message, or null once the class exists. */
  onAdd(c: ProjectClass): Promise<string | null>;
  /** Default 'Add Class'; the editor says 'Add New Box Class'. */
  title?: string;
  initialType?: AnnotationType;
}

export function AddClassDialog({ open, classes, onClose, onAdd, title = 'Add Class', initialType = 'box' }: AddClassDialogProps) {
  const [name, setName] = useState('');
  const [type, setType] = useState<AnnotationType>(initialType);
  const [color, setColor] = useState<string>(CLASS_PALETTE[0]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [wasOpen, setWasOpen] = useState(false);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setName('');
      setType(initialType);
      setColor(newClassColor(classes));
      setError(null);
      setBusy(false);
    }
  }
  const trimmed = name.trim();
  const submit = async () => {
    if (!trimmed || busy) return;
    setBusy(true);
    setError(null);
    const failure = await onAdd({ name: trimmed, type, color });
    setBusy(false);
    if (failure) setError(failure);
    else onClose();
  };
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => (!o ? onClose() : undefined)}
      dismissible={!busy}
      icon={<Tag />}
      title={title}
      description={`Classes name what annotators draw. ${classes.length ? `This project has ${classes.length}.` : 'This is the first one.'}`}
      onSubmit={() => void submit()}
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" disabled={!trimmed} busy={busy} busyLabel="Adding...">
            Add Class
          </Button>
        </>
      }
    >
      <TextField label="Class name" value={name} onChange={(e) => setName(e.target.value)} error={error} autoFocus maxLength={100} placeholder="e.g. Car" />
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>Annotation type</legend>
        <div className={styles.types}>
          {ANNOTATION_TYPES.map((t) => (
            <label key={t} className={styles.typeOption} data-checked={t === type || undefined}>
              <input type="radio" name="class-type" value={t} checked={t === type} onChange={() => setType(t)} />
              {TYPE_LABELS[t]}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>Colour</legend>
        <ColorGrid value={color} onChange={setColor} label="Class colour" />
      </fieldset>
    </Dialog>
  );
}

