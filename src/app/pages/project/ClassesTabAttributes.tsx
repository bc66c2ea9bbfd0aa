// The attributes of one class (issue 19), edited in a dialog from the Classes tab: add and remove
// attributes, each with a name, a kind (checkbox, select, number, text), the options of a select
// and a default. Checked with the contract's schema before the PATCH, so the messages are the
// server's; the server's refusal shows at the top.
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { ListChecks, Plus, Trash2, X } from 'lucide-react';
import { ATTRIBUTE_KINDS, MAX_ATTRIBUTES_PER_CLASS, MAX_ATTRIBUTE_NAME, MAX_ATTRIBUTE_OPTION, MAX_ATTRIBUTE_TEXT, ProjectClass, type AttributeDefinition, type AttributeKind } from '../../../contract/projects';
import { Button, IconButton } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import styles from './ClassesTabAttributes.module.css';

export const KIND_LABELS: Record<AttributeKind, string> = { checkbox: 'Checkbox', select: 'Select', number: 'Number', text: 'Text' };

interface Draft {
  key: number;
  name: string;
  kind: AttributeKind;
  options: string[];
  /** The default as the form holds it: a boolean for checkboxes, text otherwise ('' = none). */
  checked: boolean;
  value: string;
  optionInput: string;
}

let nextKey = 1;

function toDraft(d: AttributeDefinition): Draft {
  return {
    key: nextKey++,
    name: d.name,
    kind: d.kind,
    options: [...(d.options ?? [])],
    checked: d.default === true,
    value: d.default === undefined || d.default === null || typeof d.default === 'boolean' ? '' : String(d.default),
    optionInput: '',
  };
}

function fromDraft(d: Draft): unknown {
  const base = { name: d.name.trim(), kind: d.kind };
  switch (d.kind) {
    case 'checkbox':
      return { ...base, default: d.checked };
    case 'select':
      return { ...base, options: d.options, ...(d.value ? { default: d.value } : {}) };
    case 'number': {
      const v = d.value.trim();
      return { ...base, ...(v ? { default: Number.isFinite(Number(v)) ? Number(v) : v } : {}) };
    }
    case 'text':
      return { ...base, ...(d.value ? { default: d.value } : {}) };
  }
}

/** Per attribute (by position) the first message the schema gives, plus one for the whole list. */
function check(drafts: Draft[]): { ok: true; value: AttributeDefinition[] } | { ok: false; byIndex: Map<number, string>; general: string | null } {
  const r = ProjectClass.shape.attributes.safeParse(drafts.map(fromDraft));
  if (r.success) return { ok: true, value: r.data ?? [] };
  const byIndex = new Map<number, string>();
  let general: string | null = null;
  for (const issue of r.error.issues) {
    const i = issue.path[0];
    if (typeof i === 'number') {
      if (!byIndex.has(i)) byIndex.set(i, issue.path[1] === 'kind' ? 'Choose a kind' : issue.message);
    } else general ??= issue.message;
  }
  return { ok: false, byIndex, general };
}

// Long because one attribute row edits every kind (checkbox, select with options, number range,
// text) with its validation message; splitting per kind would repeat the row's frame.
function AttributeRow({ draft, index, error, onChange, onRemove }: { draft: Draft; index: number; error?: string; onChange(d: Draft): void; onRemove(): void }) {
  const id = useId();
  const optionRef = useRef<HTMLInputElement>(null);
  const label = draft.name.trim() || `attribute ${index + 1}`;
  const addOption = () => {
    const o = draft.optionInput.trim();
    if (!o) return;
    onChange({ ...draft, options: draft.options.includes(o) ? draft.options : [...draft.options, o], optionInput: '' });
    optionRef.current?.focus();
  };
  const onOptionKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === ',') {
      // Enter adds the option instead of submitting the dialog.
      e.preventDefault();
      addOption();
    } else if (e.key === 'Backspace' && !draft.optionInput && draft.options.length) {
      const removed = draft.options[draft.options.length - 1];
      onChange({ ...draft, options: draft.options.slice(0, -1), value: draft.value === removed ? '' : draft.value });
    }
  };
  return (
    <li className={styles.item} data-testid="attribute-definition" aria-invalid={error ? true : undefined}>
      <div className={styles.top}>
        <div className={styles.field}>
          <label className={styles.label} htmlFor={`${id}-name`}>
            Attribute name
          </label>
          <input
            id={`${id}-name`}
            className={styles.input}
            value={draft.name}
            maxLength={MAX_ATTRIBUTE_NAME}
            placeholder="e.g. Occluded"
            autoFocus={!draft.name}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
            onChange={(e) => onChange({ ...draft, name: e.target.value })}
          />
        </div>
        <div className={styles.field}>
          <label className={styles.label} htmlFor={`${id}-kind`}>
            Kind
          </label>
          <select id={`${id}-kind`} className={styles.select} value={draft.kind} onChange={(e) => onChange({ ...draft, kind: e.target.value as AttributeKind, value: '' })}>
            {ATTRIBUTE_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>
        </div>
        <IconButton className={styles.remove} label={`Remove attribute ${label}`} icon={<Trash2 />} variant="dangerGhost" onClick={onRemove} />
      </div>

      {draft.kind === 'select' ? (
        <div className={styles.field}>
          <label className={styles.label} htmlFor={`${id}-option`}>
            Options
          </label>
          <div className={styles.chips}>
            <ul className={styles.chipList} aria-label={`Options of ${label}`}>
              {draft.options.map((o) => (
                <li key={o} className={styles.chip}>
                  <span>{o}</span>
                  <button
                    type="button"
                    className={styles.chipRemove}
                    aria-label={`Remove option ${o}`}
                    onClick={() => onChange({ ...draft, options: draft.options.filter((x) => x !== o), value: draft.value === o ? '' : draft.value })}
                  >
                    <X aria-hidden="true" />
                  </button>
                </li>
              ))}
            </ul>
            <input
              id={`${id}-option`}
              ref={optionRef}
              className={styles.chipInput}
              value={draft.optionInput}
              maxLength={MAX_ATTRIBUTE_OPTION}
              placeholder={draft.options.length ? 'Add option' : 'Type an option, press Enter'}
              onChange={(e) => onChange({ ...draft, optionInput: e.target.value })}
              onKeyDown={onOptionKey}
              onBlur={addOption}
            />
          </div>
        </div>
      ) : null}

      <div className={styles.field}>
        {draft.kind === 'checkbox' ? (
          <label className={styles.check}>
            <input type="checkbox" checked={draft.checked} onChange={(e) => onChange({ ...draft, checked: e.target.checked })} />
            <span>Checked by default</span>
          </label>
        ) : (
          <>
            <label className={styles.label} htmlFor={`${id}-default`}>
              Default <span className={styles.optional}>Optional</span>
            </label>
            {draft.kind === 'select' ? (
              <select id={`${id}-default`} className={styles.select} value={draft.value} onChange={(e) => onChange({ ...draft, value: e.target.value })}>
                <option value="">First option{draft.options[0] ? ` (${draft.options[0]})` : ''}</option>
                {draft.options.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={`${id}-default`}
                className={styles.input}
                type={draft.kind === 'number' ? 'number' : 'text'}
                step="any"
                inputMode={draft.kind === 'number' ? 'decimal' : undefined}
                maxLength={draft.kind === 'text' ? MAX_ATTRIBUTE_TEXT : undefined}
                placeholder={draft.kind === 'number' ? 'No default' : 'Empty'}
                value={draft.value}
                onChange={(e) => onChange({ ...draft, value: e.target.value })}
              />
            )}
          </>
        )}
      </div>
      {error ? (
        <p id={`${id}-error`} className={styles.error} role="alert">
          {error}
        </p>
      ) : null}
    </li>
  );
}

export interface AttributesDialogProps {
  /** The class whose attributes are edited; null: closed. */
  cls: ProjectClass | null;
  onClose(): void;
  /** Resolves to the server's refusal message, or null once saved. */
  onSave(attributes: AttributeDefinition[]): Promise<string | null>;
}

export function AttributesDialog({ cls, onClose, onSave }: AttributesDialogProps) {
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [errors, setErrors] = useState<Map<number, string>>(new Map());
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<ProjectClass | null>(null);
  if (cls !== shown) {
    setShown(cls);
    if (cls) {
      setDrafts((cls.attributes ?? []).map(toDraft));
      setErrors(new Map());
      setGeneral(null);
      setBusy(false);
    }
  }
  const blank = (): Draft => ({ key: nextKey++, name: '', kind: 'checkbox', options: [], checked: false, value: '', optionInput: '' });
  const update = (i: number, d: Draft) => {
    setDrafts((ds) => ds.map((x, j) => (j === i ? d : x)));
    if (errors.has(i)) setErrors((es) => new Map([...es].filter(([k]) => k !== i)));
  };
  const submit = async () => {
    if (busy || !cls) return;
    // An option typed but not yet added counts.
    const withPending = drafts.map((d) => (d.kind === 'select' && d.optionInput.trim() && !d.options.includes(d.optionInput.trim()) ? { ...d, options: [...d.options, d.optionInput.trim()], optionInput: '' } : d));
    setDrafts(withPending);
    const r = check(withPending);
    if (!r.ok) {
      setErrors(r.byIndex);
      setGeneral(r.general);
      return;
    }
    setBusy(true);
    setGeneral(null);
    const failure = await onSave(r.value);
    setBusy(false);
    if (failure) setGeneral(failure);
    else onClose();
  };
  const full = drafts.length >= MAX_ATTRIBUTES_PER_CLASS;
  return (
    <Dialog
      open={cls !== null}
      onOpenChange={(o) => (!o ? onClose() : undefined)}
      dismissible={!busy}
      wide
      icon={<ListChecks />}
      title={`Attributes of ${shown?.name ?? ''}`}
      description="What annotators record on each shape of this class, besides its outline. New shapes start with the defaults."
      onSubmit={() => void submit()}
      footerStart={
        <Button variant="ghost" size="sm" icon={<Plus />} onClick={() => setDrafts((ds) => [...ds, blank()])} disabled={full || busy}>
          Add Attribute
        </Button>
      }
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={busy} busyLabel="Saving...">
            Save Attributes
          </Button>
        </>
      }
    >
      {general ? (
        <p className={styles.generalError} role="alert">
          {general}
        </p>
      ) : null}
      {drafts.length ? (
        <ol className={styles.list} aria-label={`Attributes of ${shown?.name ?? ''}`}>
          {drafts.map((d, i) => (
            <AttributeRow key={d.key} draft={d} index={i} error={errors.get(i)} onChange={(next) => update(i, next)} onRemove={() => setDrafts((ds) => ds.filter((_, j) => j !== i))} />
          ))}
        </ol>
      ) : (
        <div className={styles.empty}>
          <p className={styles.emptyTitle}>No attributes yet</p>
          <p className={styles.emptyText}>Add one to record, for example, whether a shape is occluded or its colour.</p>
          <Button variant="secondary" size="sm" icon={<Plus />} onClick={() => setDrafts([blank()])}>
            Add Attribute
          </Button>
        </div>
      )}
    </Dialog>
  );
}
