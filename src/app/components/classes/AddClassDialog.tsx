// The Add Class dialog (spec sections 2 and 5, issue 33): name; the tools that may draw the class
// (every tool unless some are unchecked) or a keypoint skeleton (points and edges, the COCO person
// skeleton as a starting point); a colour from the 5-column palette or any hex colour. Used by the
// Classes tab (every tool checked at first) and by the editor ('Add New {tool} Class', that tool checked).
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { Check, Tag } from 'lucide-react';
import { CLASS_PALETTE, CLASS_TOOLS, type ClassTool, type ProjectClass } from '../../../contract/projects';
import { Button } from '../Button';
import { Dialog } from '../Dialog';
import { TextField } from '../TextField';
import { COCO_PERSON_SKELETON, newClassColor, parseSkeleton, skeletonText, toolsField, TOOL_LABELS } from './classes';
import styles from './classes.module.css';

export { TOOL_LABELS };

/** Any #rrggbb colour: the browser's colour picker and the hex written out, beside the palette. */
export function HexColorField({ value, onChange, label }: { value: string; onChange(color: string): void; label: string }) {
  const id = useId();
  const [text, setText] = useState(value.toUpperCase());
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    setText(value.toUpperCase());
  }
  const valid = /^#[0-9a-fA-F]{6}$/.test(text);
  return (
    <div className={styles.hexRow}>
      <input type="color" className={styles.colorInput} aria-label={`${label}: pick any colour`} value={value.toLowerCase()} onChange={(e) => onChange(e.target.value.toUpperCase())} />
      <label htmlFor={id} className={styles.hexLabel}>
        Hex
      </label>
      <input
        id={id}
        className={styles.hexInput}
        value={text}
        maxLength={7}
        spellCheck={false}
        aria-invalid={!valid || undefined}
        aria-label={`${label} as hex`}
        onChange={(e) => {
          const next = e.target.value.startsWith('#') ? e.target.value : `#${e.target.value}`;
          setText(next);
          if (/^#[0-9a-fA-F]{6}$/.test(next)) onChange(next.toUpperCase());
        }}
      />
      {!valid ? <span className={styles.hexError}>Write six hex digits, e.g. #1A2B3C</span> : null}
    </div>
  );
}

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
  /** The tool the class is added for (the editor's): the only one checked at first, others may be added. Absent: every tool. */
  initialType?: ClassTool;
}

type Kind = 'shapes' | 'skeleton';

// Long because the dialog holds three small forms that share one submit: the name, the tools or
// the skeleton, and the colour.
export function AddClassDialog({ open, classes, onClose, onAdd, title = 'Add Class', initialType }: AddClassDialogProps) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('shapes');
  const [tools, setTools] = useState<ClassTool[]>(initialType ? [initialType] : [...CLASS_TOOLS]);
  const [points, setPoints] = useState('');
  const [edges, setEdges] = useState('');
  const [color, setColor] = useState<string>(CLASS_PALETTE[0]);
  const [error, setError] = useState<string | null>(null);
  const [skeletonError, setSkeletonError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [wasOpen, setWasOpen] = useState(false);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setName('');
      setKind('shapes');
      setTools(initialType ? [initialType] : [...CLASS_TOOLS]);
      setPoints('');
      setEdges('');
      setColor(newClassColor(classes));
      setError(null);
      setSkeletonError(null);
      setBusy(false);
    }
  }
  const trimmed = name.trim();
  const toggle = (t: ClassTool) => setTools((now) => (now.includes(t) ? now.filter((x) => x !== t) : [...now, t]));
  const startFromCoco = () => {
    const text = skeletonText(COCO_PERSON_SKELETON);
    setPoints(text.points);
    setEdges(text.edges);
    if (!trimmed) setName('person');
    setSkeletonError(null);
  };
  const submit = async () => {
    if (!trimmed || busy) return;
    let cls: ProjectClass;
    if (kind === 'skeleton') {
      const parsed = parseSkeleton(points, edges);
      if ('error' in parsed) return setSkeletonError(parsed.error);
      cls = { name: trimmed, color, kind: 'skeleton', skeleton: parsed.skeleton };
    } else {
      if (tools.length === 0) return setError('Check at least one tool');
      cls = { name: trimmed, color, ...toolsField(tools) };
    }
    setBusy(true);
    setError(null);
    setSkeletonError(null);
    const failure = await onAdd(cls);
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
        <legend className={styles.legend}>Kind</legend>
        <div className={styles.kinds}>
          {(['shapes', 'skeleton'] as const).map((k) => (
            <label key={k} className={styles.typeOption} data-checked={k === kind || undefined}>
              <input type="radio" name="class-kind" value={k} checked={k === kind} onChange={() => setKind(k)} />
              {k === 'shapes' ? 'Shapes' : 'Keypoint skeleton'}
            </label>
          ))}
        </div>
      </fieldset>
      {kind === 'shapes' ? (
        <fieldset className={styles.fieldset}>
          <legend className={styles.legend}>Drawn with</legend>
          <div className={styles.types}>
            {CLASS_TOOLS.map((t) => (
              <label key={t} className={styles.typeOption} data-checked={tools.includes(t) || undefined}>
                <input type="checkbox" name="class-tools" value={t} checked={tools.includes(t)} onChange={() => toggle(t)} />
                {TOOL_LABELS[t]}
              </label>
            ))}
          </div>
          <p className={styles.hint}>{tools.length === CLASS_TOOLS.length ? 'Any tool may draw this class. Uncheck the tools it should not be drawn with.' : tools.length === 0 ? 'Check at least one tool.' : `Drawn with the ${CLASS_TOOLS.filter((t) => tools.includes(t)).map((t) => TOOL_LABELS[t].toLowerCase()).join(', ')} tool${tools.length > 1 ? 's' : ''} only; the Classes tab can widen it later.`}</p>
        </fieldset>
      ) : (
        <fieldset className={styles.fieldset}>
          <legend className={styles.legend}>Skeleton</legend>
          <div className={styles.skeletonGrid}>
            <label className={styles.area}>
              <span>Points, one a line, in order</span>
              <textarea value={points} onChange={(e) => setPoints(e.target.value)} rows={6} spellCheck={false} placeholder={'nose\nleft_eye\nright_eye'} />
            </label>
            <label className={styles.area}>
              <span>Edges, one a line (a - b)</span>
              <textarea value={edges} onChange={(e) => setEdges(e.target.value)} rows={6} spellCheck={false} placeholder={'left_eye - nose\nright_eye - nose'} />
            </label>
          </div>
          {skeletonError ? (
            <p className={styles.error} role="alert">
              {skeletonError}
            </p>
          ) : null}
          <Button variant="secondary" size="sm" onClick={startFromCoco}>
            Start from the COCO person skeleton
          </Button>
        </fieldset>
      )}
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>Colour</legend>
        <ColorGrid value={color} onChange={setColor} label="Class colour" />
        <HexColorField value={color} onChange={setColor} label="Class colour" />
      </fieldset>
    </Dialog>
  );
}
