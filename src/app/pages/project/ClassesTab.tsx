// Classes tab (spec sections 2, 3 and 5): list, add, rename inline, duplicate, recolour, delete.
// Every change is a PATCH /projects/{id} {classes}; the list updates at once and rolls back with a
// toast when the server refuses (its message, for example a duplicate name).
import { useRef, useState } from 'react';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, Copy, ListChecks, Pencil, Plus, Tag, Trash2 } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { CLASS_PALETTE, type Project, type ProjectClass } from '../../../contract/projects';
import { api, serverMessage } from '../../api/client';
import { Button, IconButton } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { useSelection } from '../../stores/selection';
import { toast } from '../../stores/toast';
import { useDenied } from '../../stores/permissions';
import { projectKey, useProjectCache } from '../../stores/projectQueries';
import { AddClassDialog, TYPE_LABELS } from '../../components/classes/AddClassDialog';
import { duplicateName, newClassColor } from '../../components/classes/classes';
import { AttributesDialog } from './ClassesTabAttributes';
import styles from './ClassesTab.module.css';
import classStyles from '../../components/classes/classes.module.css';

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

/** The classes' optimistic PATCH, one at a time: `save(change, failure, optimistic)` resolves to the
 * server's refusal message, or null on success. */
function useSaveClasses(project: Project) {
  const qc = useQueryClient();
  const cache = useProjectCache();
  const updateSelection = useSelection((s) => s.update);
  const chain = useRef<Promise<unknown>>(Promise.resolve());

  const current = () => qc.getQueryData<Project>(projectKey(project.id)) ?? project;

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
  return save;
}

/** The swatch that opens the palette; picking the colour it already has changes nothing. */
function ColourMenu({ cls: c, onPick }: { cls: ProjectClass; onPick(color: string): void }) {
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <button type="button" className={styles.swatch} style={{ background: c.color }} aria-label={`Change colour of ${c.name}`} />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className={styles.menu} align="start" sideOffset={6} aria-label={`Colours for ${c.name}`}>
          <div className={classStyles.grid}>
            {CLASS_PALETTE.map((color) => (
              <DropdownMenu.Item
                key={color}
                className={classStyles.gridSwatch}
                style={{ background: color }}
                aria-label={`Colour ${color}`}
                onSelect={() => (color !== c.color ? onPick(color) : undefined)}
              >
                {color.toLowerCase() === c.color.toLowerCase() ? <Check aria-hidden="true" /> : null}
              </DropdownMenu.Item>
            ))}
          </div>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

function attributeCount(c: ProjectClass): string {
  const n = c.attributes?.length ?? 0;
  return n === 0 ? 'No attributes' : n === 1 ? '1 attribute' : `${n} attributes`;
}

// Long because the tab's table, its row menus and the dialogs it opens share the project's classes
// and one save path; the name editor and the attributes dialog are their own components.
export function ClassesTab({ project }: { project: Project }) {
  // Viewers, annotators and reviewers see the classes; owners and admins edit them. Add Class, the
  // tab's header button, stays disabled with the reason; the rows' actions are hidden (the rule:
  // src/app/stores/permissions.ts).
  const editDenied = useDenied('classes.edit', 'edit classes');
  const canEdit = !editDenied;
  const save = useSaveClasses(project);
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<ProjectClass | null>(null);
  const [attributesOf, setAttributesOf] = useState<ProjectClass | null>(null);
  const classes = project.classes;

  const rename = (from: string, to: string) => {
    setRenaming(null);
    void save((cs) => cs.map((c) => (c.name === from ? { ...c, name: to } : c)), `Failed to rename class "${from}". Please try again.`);
  };
  const duplicate = (c: ProjectClass) =>
    void save((cs) => {
      const copy = { ...c, name: duplicateName(c.name, cs), color: newClassColor(cs, c.color) };
      const i = cs.findIndex((x) => x.name === c.name);
      return [...cs.slice(0, i + 1), copy, ...cs.slice(i + 1)];
    }, `Failed to duplicate class "${c.name}". Please try again.`);
  const saveAttributes = (c: ProjectClass, attributes: NonNullable<ProjectClass['attributes']>) =>
    save(
      (cs) =>
        cs.map((x) => {
          if (x.name !== c.name) return x;
          const next: ProjectClass = { ...x, attributes };
          // A class without attributes keeps free-form annotation attributes (contract/annotations-attributes.ts).
          if (!attributes.length) delete next.attributes;
          return next;
        }),
      `Failed to save the attributes of "${c.name}". Please try again.`,
      false,
    );
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
          <p>Names, shapes, colours and attributes annotators choose from.</p>
        </div>
        <Button variant="primary" size="sm" icon={<Plus />} onClick={() => setAdding(true)} disabledReason={editDenied}>
          Add Class
        </Button>
      </div>

      {classes.length ? (
        <ul className={styles.list} aria-label="Annotation classes">
          {classes.map((c) => (
            <li key={c.name} className={styles.row} data-testid="class-row">
              {canEdit ? (
                <ColourMenu cls={c} onPick={(color) => recolor(c, color)} />
              ) : (
                <span className={styles.swatch} data-static="true" style={{ background: c.color }} aria-hidden="true" />
              )}
              <div className={styles.nameCell}>
                {renaming === c.name ? (
                  <InlineName initial={c.name} onCommit={(to) => rename(c.name, to)} onCancel={() => setRenaming(null)} />
                ) : (
                  <span className={styles.name} data-editable={canEdit || undefined} onDoubleClick={() => (canEdit ? setRenaming(c.name) : undefined)}>
                    {c.name}
                  </span>
                )}
              </div>
              {canEdit ? (
                <button type="button" className={styles.attributes} aria-label={`Attributes of ${c.name}: ${attributeCount(c)}`} onClick={() => setAttributesOf(c)}>
                  <ListChecks aria-hidden="true" />
                  <span className="tabular">{attributeCount(c)}</span>
                </button>
              ) : (
                <span className={styles.attributes} data-static="true">
                  <ListChecks aria-hidden="true" />
                  <span className="tabular">{attributeCount(c)}</span>
                </span>
              )}
              <span className={styles.type}>{c.type ? TYPE_LABELS[c.type] : 'Any tool'}</span>
              <span className={`${styles.hex} tabular`}>{c.color.toUpperCase()}</span>
              {canEdit ? (
                <div className={styles.actions}>
                  <IconButton label={`Rename ${c.name}`} icon={<Pencil />} onClick={() => setRenaming(c.name)} />
                  <IconButton label={`Duplicate ${c.name}`} icon={<Copy />} onClick={() => duplicate(c)} />
                  <IconButton label={`Delete ${c.name}`} icon={<Trash2 />} variant="dangerGhost" onClick={() => setDeleting(c)} />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <EmptyState
          icon={<Tag />}
          title="No classes yet"
          description={
            canEdit ? 'Add the classes annotators will draw: a name, a shape type and a colour.' : `${editDenied}; an owner or admin adds the classes annotators draw.`
          }
          action={
            canEdit ? (
              <Button variant="primary" icon={<Plus />} onClick={() => setAdding(true)}>
                Add Class
              </Button>
            ) : undefined
          }
        />
      )}

      <AddClassDialog
        open={adding}
        classes={classes}
        onClose={() => setAdding(false)}
        onAdd={(c) => save((cs) => [...cs, c], 'Failed to add class. Please try again.', false)}
      />
      <AttributesDialog cls={attributesOf} onClose={() => setAttributesOf(null)} onSave={(attributes) => (attributesOf ? saveAttributes(attributesOf, attributes) : Promise.resolve(null))} />
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
