// The Attributes panel (issue 19), in the editor's right sidebar under the annotation list: edits
// the attributes of the selected shape or shapes as their class defines them (checkbox, select,
// number, text); shown while shapes are selected in a project whose classes define attributes. A value missing on a shape shows its default; values that differ across a
// multi-selection show as mixed. Every change is one undoable engine command
// ('update-attributes'), saved like any other edit.
//
// Opening it from elsewhere (the Enter key, a button): `openAttributesPanel()` expands the panel
// and focuses its first field (false when no panel is mounted or the selection has no attributes),
// or render it with a changing `focusToken`.
// `useClassAttributeDefaults(editor, classes)` plugs the classes' definitions into the engine, so
// new shapes get their class's defaults and a class change conforms the attributes.
// A stored value can be any JSON (saved before a definition changed, or under another class):
// it is shown as text (`shownValue`), never converted with String(), which throws on an object
// without a usable toString and blanked the editor (issue 30); one that does not fit its kind says so.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { ChevronDown, ListChecks } from 'lucide-react';
import type { Editor, JsonValue, ViewState } from '../../../engine';
import { attributeValue, conformAttributes } from '../../../contract/annotations-attributes';
import { attributeValueProblem, defaultAttributeValue, type AttributeDefinition, type AttributeValue, type ProjectClass } from '../../../contract/projects';
import { ErrorBoundary } from '../../components/ErrorBoundary';
import styles from './AttributesPanel.module.css';

/** The engine's attributes policy from the project's classes (call once in the editor screen). */
export function useClassAttributeDefaults(editor: Editor, classes: readonly ProjectClass[]): void {
  useEffect(() => {
    const byName = new Map(classes.map((c) => [c.name, c]));
    editor.setAttributesPolicy((cls, current) => conformAttributes(byName.get(cls), current) as readonly JsonValue[]);
    return () => editor.setAttributesPolicy(undefined);
  }, [editor, classes]);
}

/** The mounted panel's opener (one editor screen at a time). */
let opener: (() => boolean) | null = null;

/**
 * Expands the Attributes panel and focuses its first field. Returns false (and does nothing) when
 * no panel is mounted or the selection has no attributes to edit, so a key binding can fall back.
 */
export function openAttributesPanel(): boolean {
  return opener ? opener() : false;
}

const MIXED = Symbol('mixed');
type Shown = AttributeValue | typeof MIXED;

/** Characters of a stored value shown in a field (a value can be a whole JSON document). */
const SHOWN_VALUE_MAX = 200;

/** Any stored value as text: a string as it is, JSON for the rest, cut to SHOWN_VALUE_MAX characters. Never throws. */
export function shownValue(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = '';
  else if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? '';
    } catch {
      text = '(a value that cannot be shown)';
    }
  }
  return text.length > SHOWN_VALUE_MAX ? `${text.slice(0, SHOWN_VALUE_MAX - 1)}…` : text;
}

interface Row {
  def: AttributeDefinition;
  value: Shown;
}

/** The definitions every selected class shares (same name, kind and options), in the first class's order. */
function sharedDefinitions(classes: (ProjectClass | undefined)[]): AttributeDefinition[] {
  const [first, ...rest] = classes;
  if (!first?.attributes?.length) return [];
  const same = (a: AttributeDefinition, b: AttributeDefinition) => a.kind === b.kind && JSON.stringify(a.options ?? []) === JSON.stringify(b.options ?? []);
  return first.attributes.filter((d) => rest.every((c) => c?.attributes?.some((x) => x.name === d.name && same(x, d))));
}

export interface AttributesPanelProps {
  editor: Editor;
  view: ViewState;
  /** Changes with every document change (the panel reads the selected shapes again). */
  documentVersion: number;
  classes: readonly ProjectClass[];
  /** Why the values cannot be changed (a view-only role, an earlier version shown); null when they can. */
  readOnlyReason?: string | null;
  /** Each new value opens the panel and focuses its first field (the same as openAttributesPanel()). */
  focusToken?: number;
}

/** The panel behind its own error boundary (issue 30): choosing another shape renders it anew. */
export function AttributesPanel(props: AttributesPanelProps) {
  return (
    <ErrorBoundary what="The attributes panel" detail="Your annotations are still saved." resetKey={props.view.selected}>
      <AttributesPanelBody {...props} />
    </ErrorBoundary>
  );
}

function AttributesPanelBody({ editor, view, documentVersion, classes, readOnlyReason = null, focusToken }: AttributesPanelProps) {
  const [open, setOpen] = useState(true);
  const bodyRef = useRef<HTMLDivElement>(null);
  const headingId = useId();
  const byName = useMemo(() => new Map(classes.map((c) => [c.name, c])), [classes]);
  const usesAttributes = classes.some((c) => c.attributes?.length);

  const selectedIds = useMemo(() => [...view.selected], [view.selected]);
  const { rows, classLabel, note } = useMemo(() => {
    void documentVersion;
    const shapes = selectedIds.map((id) => editor.getAnnotation(id)).filter((a) => a !== undefined);
    if (shapes.length === 0) return { rows: [] as Row[], classLabel: '', note: null };
    const names = [...new Set(shapes.map((a) => a.class))];
    const defs = sharedDefinitions(names.map((n) => byName.get(n)));
    const label = names.length === 1 ? names[0]! : `${names.length} classes`;
    if (defs.length === 0) {
      const any = names.some((n) => byName.get(n)?.attributes?.length);
      return {
        rows: [] as Row[],
        classLabel: label,
        note: any ? 'The selected classes have no attributes in common.' : names.length === 1 ? `The class “${names[0]}” has no attributes. Add them on the project's Classes tab.` : 'These classes have no attributes.',
      };
    }
    const out: Row[] = defs.map((def) => {
      let shown: Shown | undefined;
      for (const a of shapes) {
        const raw = attributeValue(a.attributes as readonly unknown[] | undefined, def.name);
        // A value saved before the definition changed is shown as it is (the save keeps it while unchanged).
        const v = raw !== undefined ? raw : defaultAttributeValue(def);
        if (shown === undefined) shown = v;
        else if (shown !== v) {
          shown = MIXED;
          break;
        }
      }
      return { def, value: shown ?? defaultAttributeValue(def) };
    });
    return { rows: out, classLabel: label, note: null };
  }, [editor, selectedIds, byName, documentVersion]);

  const set = (name: string, value: AttributeValue) => {
    if (readOnlyReason || selectedIds.length === 0) return;
    editor.execute('update-attributes', { ids: selectedIds, values: { [name]: value } });
  };

  const focusFirst = (): boolean => {
    if (rows.length === 0) return false;
    setOpen(true);
    // After the expand renders.
    requestAnimationFrame(() => bodyRef.current?.querySelector<HTMLElement>('input, select')?.focus());
    return true;
  };
  const focusRef = useRef(focusFirst);
  focusRef.current = focusFirst;
  useEffect(() => {
    const mine = () => focusRef.current();
    opener = mine;
    return () => {
      if (opener === mine) opener = null;
    };
  }, []);
  const lastToken = useRef(focusToken);
  useEffect(() => {
    if (focusToken !== undefined && focusToken !== lastToken.current) focusRef.current();
    lastToken.current = focusToken;
  }, [focusToken]);

  // Nothing selected, or a project that uses no attributes: no panel (no clutter for those who do not need it).
  if (selectedIds.length === 0 || !usesAttributes) return null;

  return (
    <section className={styles.panel} aria-labelledby={headingId} data-testid="attributes-panel">
      <button type="button" className={styles.header} aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <ListChecks aria-hidden="true" className={styles.headerIcon} />
        <h3 id={headingId} className={styles.title}>
          Attributes
        </h3>
        <span className={styles.meta}>
          {classLabel}
          {selectedIds.length > 1 ? ` · ${selectedIds.length.toLocaleString()}` : ''}
        </span>
        <ChevronDown aria-hidden="true" className={styles.chevron} data-open={open || undefined} />
      </button>
      {open ? (
        <div ref={bodyRef} className={styles.body}>
          {note ? <p className={styles.note}>{note}</p> : null}
          {rows.map((r) => (
            <Field key={r.def.name} row={r} disabledReason={readOnlyReason} onChange={(v) => set(r.def.name, v)} />
          ))}
        </div>
      ) : null}
    </section>
  );
}

function Field({ row: { def, value }, disabledReason, onChange }: { row: Row; disabledReason: string | null; onChange(v: AttributeValue): void }) {
  const id = useId();
  const mixed = value === MIXED;
  const disabled = disabledReason !== null;
  // A stored value its kind refuses (a select's is shown among the options instead).
  const misfit = !mixed && (value !== null || def.kind === 'checkbox') ? attributeValueProblem(def, value) : null;
  const misfitNote = misfit && def.kind !== 'select' ? <span className={styles.misfit}>{`Saved value: ${shownValue(value) || 'none'} (${misfit})`}</span> : null;
  const checkRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (checkRef.current) checkRef.current.indeterminate = mixed;
  }, [mixed]);

  if (def.kind === 'checkbox') {
    return (
      <label className={styles.check} title={disabledReason ?? undefined}>
        <input ref={checkRef} type="checkbox" checked={!mixed && value === true} aria-checked={mixed ? 'mixed' : value === true} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
        <span className={styles.checkLabel}>{def.name}</span>
        {mixed ? <span className={styles.mixed}>Mixed</span> : null}
        {misfitNote}
      </label>
    );
  }
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={styles.label}>
        {def.name}
      </label>
      {def.kind === 'select' ? (
        <select id={id} className={styles.control} value={mixed ? '' : shownValue(value)} disabled={disabled} title={disabledReason ?? undefined} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}>
          {mixed ? (
            <option value="" disabled>
              Mixed
            </option>
          ) : value === null ? (
            <option value="">No value</option>
          ) : misfit ? (
            <option value={shownValue(value)} disabled>
              {`${shownValue(value)} (not an option)`}
            </option>
          ) : null}
          {(def.options ?? []).map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      ) : (
        <TextInput id={id} kind={def.kind} value={mixed ? null : def.kind === 'number' ? (typeof value === 'number' ? value : null) : shownValue(value)} mixed={mixed} disabledReason={disabledReason} onCommit={onChange} />
      )}
      {misfitNote}
    </div>
  );
}

/** Number and text fields commit on Enter or blur (one undo entry per edit, not per keystroke); Escape puts the value back. */
function TextInput({ id, kind, value, mixed, disabledReason, onCommit }: { id: string; kind: 'number' | 'text'; value: string | number | null; mixed: boolean; disabledReason: string | null; onCommit(v: AttributeValue): void }) {
  const shown = value === null ? '' : String(value);
  const [draft, setDraft] = useState(shown);
  const [error, setError] = useState<string | null>(null);
  const [was, setWas] = useState(shown);
  if (shown !== was) {
    setWas(shown);
    setDraft(shown);
    setError(null);
  }
  const commit = () => {
    if (draft === shown && !mixed) return;
    if (mixed && draft === '') return;
    if (kind === 'text') return onCommit(draft);
    const t = draft.trim();
    if (t === '') return onCommit(null);
    const n = Number(t);
    if (!Number.isFinite(n)) return setError('Enter a number');
    setError(null);
    onCommit(n);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      commit();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setDraft(shown);
      setError(null);
      e.currentTarget.blur();
    }
  };
  return (
    <>
      <input
        id={id}
        className={styles.control}
        type={kind === 'number' ? 'number' : 'text'}
        step="any"
        inputMode={kind === 'number' ? 'decimal' : undefined}
        value={draft}
        placeholder={mixed ? 'Mixed' : kind === 'number' ? 'No value' : ''}
        disabled={disabledReason !== null}
        title={disabledReason ?? undefined}
        aria-invalid={error ? true : undefined}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={onKey}
      />
      {error ? (
        <span className={styles.error} role="alert">
          {error}
        </span>
      ) : null}
    </>
  );
}
