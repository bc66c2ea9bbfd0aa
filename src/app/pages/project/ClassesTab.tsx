// Classes tab (spec sections 2, 3 and 5): list, add, rename inline, duplicate, recolour, delete.
// Every change is a PATCH /projects/{id} {classes}; the list updates at once and rolls back with a
// toast when the server refuses (its message, for example a duplicate name).
import { useRef, useState, type KeyboardEvent } from 'react';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, Copy, Pencil, Plus, Tag, Trash2 } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { ANNOTATION_TYPES, CLASS_PALETTE, type AnnotationType, type Project, type ProjectClass } from '../../../contract/projects';
import { api, serverMessage } from '../../api/client';
import { Button, IconButton } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { TextField } from '../../components/TextField';
import { useSelection } from '../../stores/selection';
import { toast } from '../../stores/toast';
import { projectKey, useProjectCache } from '../projects/queries';
import { duplicateName, unusedPaletteColor } from './classes';
import styles from './ClassesTab.module.css';

const TYPE_LABELS: Record<AnnotationType, string> = { box: 'Box', polygon: 'Polygon', polyline: 'Polyline', keypoint: 'Keypoint' };

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

function AddClassDialog({ open, classes, onClose, onAdd }: { open: boolean; classes: ProjectClass[]; onClose(): void; onAdd(c: ProjectClass): Promise<string | null> }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<AnnotationType>('box');
  const [color, setColor] = useState<string>(CLASS_PALETTE[0]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [wasOpen, setWasOpen] = useState(false);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setName('');
      setType('box');
      setColor(unusedPaletteColor(classes));
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
      title="Add Class"
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

function InlineName({ initial, onCommit, onCancel }: { initial: string; onCommit(name: string): void; onCancel(): void }) {
  const [value, setValue] = useState(initial);
  const done = useRef(false);
  const finish = (commit: boolean) => {
    if (done.current) return;
    done.current = true;
    const next = value.trim();
    if (commit && next && next !== initial) onCommit(next);
    else onCancel();
  };
  return (
    <input
      className={styles.renameInput}
      aria-label={`Rename class ${initial}`}
      value={value}
      maxLength={100}
      autoFocus
      onFocus={(e) => e.currentTarget.select()}
      onChange={(e) => setValue(e.target.value)}
      onBlur={() => finish(true)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          finish(true);
        } else if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          finish(false);
        }
      }}
    />
  );
}

export function ClassesTab({ project }: { project: Project }) {
  const qc = useQueryClient();
  const cache = useProjectCache();
  const updateSelection = useSelection((s) => s.update);
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<ProjectClass | null>(null);
  const chain = useRef<Promise<unknown>>(Promise.resolve());
  const classes = project.classes;

  const current = () => qc.getQueryData<Project>(projectKey(project.id)) ?? project;

  /** Optimistic PATCH; resolves to the server's refusal message, or null on success. */
  const save = (change: (classes: ProjectClass[]) => ProjectClass[], failure: string, optimistic = true): Promise<string | null> => {
    const run = async (): Promise<string | null> => {
      const before = current();
      const next = change(before.classes);
      if (optimistic) {
        qc.setQueryData(projectKey(project.id), { ...before, classes: next });
        updateSelection({ ...before, classes: next });
      }
      try {
        const res = await api.updateProject(project.id, { classes: next });
        cache.upsert(res.project);
        updateSelection(res.project);
        return null;
      } catch (err) {
        const message = serverMessage(err, failure);
        if (optimistic) {
          const now = current();
          const rolled = { ...now, classes: before.classes };
          qc.setQueryData(projectKey(project.id), rolled);
          updateSelection(rolled);
          toast(message, 'danger', 5000);
        }
        return message;
      }
    };
    const p = chain.current.then(run, run);
    chain.current = p;
    return p;
  };

  const rename = (from: string, to: string) => {
    setRenaming(null);
    void save((cs) => cs.map((c) => (c.name === from ? { ...c, name: to } : c)), `Failed to rename class "${from}". Please try again.`);
  };
  const duplicate = (c: ProjectClass) =>
    void save((cs) => {
      const copy = { ...c, name: duplicateName(c.name, cs), color: unusedPaletteColor(cs, c.color) };
      const i = cs.findIndex((x) => x.name === c.name);
      return [...cs.slice(0, i + 1), copy, ...cs.slice(i + 1)];
    }, `Failed to duplicate class "${c.name}". Please try again.`);
  const recolor = (c: ProjectClass, color: string) =>
    void save((cs) => cs.map((x) => (x.name === c.name ? { ...x, color } : x)), `Failed to change the colour of "${c.name}". Please try again.`);
  const remove = (c: ProjectClass) => {
    setDeleting(null);
    void save((cs) => cs.filter((x) => x.name !== c.name), `Failed to delete class "${c.name}". Please try again.`).then((failed) =>
      failed ? undefined : toast(`Deleted class "${c.name}"`, 'success'),
    );
  };

  return (
    <>
      <div className={styles.head}>
        <div>
          <h2>Classes</h2>
          <p>Names, shapes and colours annotators choose from.</p>
        </div>
        <Button variant="primary" size="sm" icon={<Plus />} onClick={() => setAdding(true)}>
          Add Class
        </Button>
      </div>

      {classes.length ? (
        <ul className={styles.list} aria-label="Annotation classes">
          {classes.map((c) => (
            <li key={c.name} className={styles.row} data-testid="class-row">
              <DropdownMenu.Root>
                <DropdownMenu.Trigger asChild>
                  <button type="button" className={styles.swatch} style={{ background: c.color }} aria-label={`Change colour of ${c.name}`} />
                </DropdownMenu.Trigger>
                <DropdownMenu.Portal>
                  <DropdownMenu.Content className={styles.menu} align="start" sideOffset={6} aria-label={`Colours for ${c.name}`}>
                    <div className={styles.grid}>
                      {CLASS_PALETTE.map((color) => (
                        <DropdownMenu.Item
                          key={color}
                          className={styles.gridSwatch}
                          style={{ background: color }}
                          aria-label={`Colour ${color}`}
                          onSelect={() => (color !== c.color ? recolor(c, color) : undefined)}
                        >
                          {color.toLowerCase() === c.color.toLowerCase() ? <Check aria-hidden="true" /> : null}
                        </DropdownMenu.Item>
                      ))}
                    </div>
                  </DropdownMenu.Content>
                </DropdownMenu.Portal>
              </DropdownMenu.Root>
              <div className={styles.nameCell}>
                {renaming === c.name ? (
                  <InlineName initial={c.name} onCommit={(to) => rename(c.name, to)} onCancel={() => setRenaming(null)} />
                ) : (
                  <span className={styles.name} onDoubleClick={() => setRenaming(c.name)}>
                    {c.name}
                  </span>
                )}
              </div>
              <span className={styles.type}>{TYPE_LABELS[c.type]}</span>
              <span className={`${styles.hex} tabular`}>{c.color.toUpperCase()}</span>
              <div className={styles.actions}>
                <IconButton label={`Rename ${c.name}`} icon={<Pencil />} onClick={() => setRenaming(c.name)} />
                <IconButton label={`Duplicate ${c.name}`} icon={<Copy />} onClick={() => duplicate(c)} />
                <IconButton label={`Delete ${c.name}`} icon={<Trash2 />} variant="dangerGhost" onClick={() => setDeleting(c)} />
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <EmptyState
          icon={<Tag />}
          title="No classes yet"
          description="Add the classes annotators will draw: a name, a shape type and a colour."
          action={
            <Button variant="primary" icon={<Plus />} onClick={() => setAdding(true)}>
              Add Class
            </Button>
          }
        />
      )}

      <AddClassDialog
        open={adding}
        classes={classes}
        onClose={() => setAdding(false)}
        onAdd={(c) => save((cs) => [...cs, c], 'Failed to add class. Please try again.', false)}
      />
      <Dialog
        open={deleting !== null}
        onOpenChange={(o) => (!o ? setDeleting(null) : undefined)}
        tone="danger"
        icon={<Trash2 />}
        title="Delete class?"
        description={deleting ? `“${deleting.name}” will no longer be offered to annotators. Existing annotations keep their class name.` : undefined}
        onSubmit={() => (deleting ? remove(deleting) : undefined)}
        footer={
          <>
            <Button variant="secondary" onClick={() => setDeleting(null)} autoFocus>
              Cancel
            </Button>
            <Button type="submit" variant="danger" icon={<Trash2 />}>
              Delete Class
            </Button>
          </>
        }
      />
    </>
  );
}
