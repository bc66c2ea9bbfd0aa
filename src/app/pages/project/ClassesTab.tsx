// Classes tab (spec sections 2, 3 and 5; issue 33): list, add (one, or many from a pasted list or a
// COCO file), rename inline, duplicate, recolour (palette or any hex), widen or narrow the tools a
// class may be drawn with, delete.
// Every change is a PATCH /projects/{id} {classes}; the list updates at once and rolls back with a
// toast when the server refuses (its message, for example a duplicate name).
import { useRef, useState } from 'react';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, ChevronDown, Copy, ListChecks, ListPlus, Pencil, Plus, Tag, Trash2 } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { CLASS_PALETTE, CLASS_TOOLS, classTools, type ClassTool, type Project, type ProjectClass } from '../../../contract/projects';
import { api, serverMessage } from '../../api/client';
import { Button, IconButton } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { useSelection } from '../../stores/selection';
import { toast } from '../../stores/toast';
import { useDenied } from '../../stores/permissions';
import { projectKey, useProjectCache } from '../../stores/projectQueries';
import { AddClassDialog, HexColorField, TOOL_LABELS } from '../../components/classes/AddClassDialog';
import { duplicateName, newClassColor, toolsField, toolsLabel } from '../../components/classes/classes';
import { AddClassesDialog } from './ClassesTabBulk';
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

/** The swatch that opens the palette, and any hex colour below it (applied with its button, not while the picker is dragged); picking the colour it already has changes nothing. */
function ColourMenu({ cls: c, onPick }: { cls: ProjectClass; onPick(color: string): void }) {
  const [draft, setDraft] = useState(c.color);
  return (
    <DropdownMenu.Root onOpenChange={(o) => (o ? setDraft(c.color) : undefined)}>
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
          {/* Typing a hex must not move the menu's highlight (its typeahead). */}
          <div className={styles.colourMore} onKeyDown={(e) => e.stopPropagation()}>
            <HexColorField value={draft} onChange={setDraft} label={`Colour of ${c.name}`} />
            <DropdownMenu.Item asChild onSelect={() => (draft.toLowerCase() !== c.color.toLowerCase() ? onPick(draft) : undefined)}>
              <Button variant="secondary" size="sm">
                Use {draft.toUpperCase()}
              </Button>
            </DropdownMenu.Item>
          </div>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** The tools a class may be drawn with, as a menu of checks: widen or narrow them (at least one stays). A skeleton class is drawn with the keypoint tool only. */
function ToolsMenu({ cls: c, onChange }: { cls: ProjectClass; onChange(tools: ClassTool[]): void }) {
  const tools = classTools(c);
  if (c.kind === 'skeleton') return <span className={styles.tools} data-static="true">{toolsLabel(c)}</span>;
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <button type="button" className={styles.tools} aria-label={`Tools for ${c.name}: ${toolsLabel(c)}`}>
          {toolsLabel(c)}
          <ChevronDown aria-hidden="true" />
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className={styles.menu} align="end" sideOffset={6} aria-label={`Tools that may draw ${c.name}`}>
          {CLASS_TOOLS.map((t) => (
            <DropdownMenu.CheckboxItem
              key={t}
              className={`${styles.menuCheckItem} ${classStyles.typeOption}`}
              checked={tools.includes(t)}
              disabled={tools.length === 1 && tools.includes(t)}
              onSelect={(e) => e.preventDefault()}
              onCheckedChange={(on) => onChange(on ? [...tools, t] : tools.filter((x) => x !== t))}
            >
              {TOOL_LABELS[t]}
            </DropdownMenu.CheckboxItem>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

function attributeCount(c: ProjectClass): string {
  const n = c.attributes?.length ?? 0;
  return n === 0 ? 'No attributes' : n === 1 ? '1 attribute' : `${n} attributes`;
}

interface ClassRowProps {
  cls: ProjectClass;
  canEdit: boolean;
  renaming: boolean;
  onRenameStart(): void;
  onRename(to: string): void;
  onRenameCancel(): void;
  onRecolor(color: string): void;
  onTools(tools: ClassTool[]): void;
  onAttributes(): void;
  onDuplicate(): void;
  onDelete(): void;
}

/** One class in the list: colour, name (renamed in place), attributes, tools, hex and the actions. */
function ClassRow({ cls: c, canEdit, renaming, onRenameStart, onRename, onRenameCancel, onRecolor, onTools, onAttributes, onDuplicate, onDelete }: ClassRowProps) {
  return (
    <li className={styles.row} data-testid="class-row">
      {canEdit ? (
        <ColourMenu cls={c} onPick={onRecolor} />
      ) : (
        <span className={styles.swatch} data-static="true" style={{ background: c.color }} aria-hidden="true" />
      )}
      <div className={styles.nameCell}>
        {renaming ? (
          <InlineName initial={c.name} onCommit={onRename} onCancel={onRenameCancel} />
        ) : (
          <span className={styles.name} data-editable={canEdit || undefined} onDoubleClick={() => (canEdit ? onRenameStart() : undefined)}>
            {c.name}
          </span>
        )}
      </div>
      {canEdit ? (
        <button type="button" className={styles.attributes} aria-label={`Attributes of ${c.name}: ${attributeCount(c)}`} onClick={onAttributes}>
          <ListChecks aria-hidden="true" />
          <span className="tabular">{attributeCount(c)}</span>
        </button>
      ) : (
        <span className={styles.attributes} data-static="true">
          <ListChecks aria-hidden="true" />
          <span className="tabular">{attributeCount(c)}</span>
        </span>
      )}
      {canEdit ? (
        <ToolsMenu cls={c} onChange={onTools} />
      ) : (
        <span className={styles.tools} data-static="true">
          {toolsLabel(c)}
        </span>
      )}
      <span className={`${styles.hex} tabular`}>{c.color.toUpperCase()}</span>
      {canEdit ? (
        <div className={styles.actions}>
          <IconButton label={`Rename ${c.name}`} icon={<Pencil />} onClick={onRenameStart} />
          <IconButton label={`Duplicate ${c.name}`} icon={<Copy />} onClick={onDuplicate} />
          <IconButton label={`Delete ${c.name}`} icon={<Trash2 />} variant="dangerGhost" onClick={onDelete} />
        </div>
      ) : null}
    </li>
  );
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
  const [addingMany, setAddingMany] = useState(false);
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
  const setTools = (c: ProjectClass, tools: ClassTool[]) =>
    void save(
      (cs) =>
        cs.map((x) => {
          if (x.name !== c.name) return x;
          // The tools decide now: the older one-type field would contradict them.
          const { type: _type, tools: _tools, ...rest } = x;
          return { ...rest, ...toolsField(tools) };
        }),
      `Failed to change the tools of "${c.name}". Please try again.`,
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
          <p>Names, the tools that draw them, colours and attributes annotators choose from.</p>
        </div>
        <div className={styles.headActions}>
          <Button variant="secondary" size="sm" icon={<ListPlus />} onClick={() => setAddingMany(true)} disabledReason={editDenied}>
            Add from List
          </Button>
          <Button variant="primary" size="sm" icon={<Plus />} onClick={() => setAdding(true)} disabledReason={editDenied}>
            Add Class
          </Button>
        </div>
      </div>

      {classes.length ? (
        <ul className={styles.list} aria-label="Annotation classes">
          {classes.map((c) => (
            <ClassRow
              key={c.name}
              cls={c}
              canEdit={canEdit}
              renaming={renaming === c.name}
              onRenameStart={() => setRenaming(c.name)}
              onRename={(to) => rename(c.name, to)}
              onRenameCancel={() => setRenaming(null)}
              onRecolor={(color) => recolor(c, color)}
              onTools={(tools) => setTools(c, tools)}
              onAttributes={() => setAttributesOf(c)}
              onDuplicate={() => duplicate(c)}
              onDelete={() => setDeleting(c)}
            />
          ))}
        </ul>
      ) : (
        <EmptyState
          icon={<Tag />}
          title="No classes yet"
          description={
            canEdit ? 'Add the classes annotators will draw: a name, the tools that may draw it and a colour.' : `${editDenied}; an owner or admin adds the classes annotators draw.`
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
      <AddClassesDialog open={addingMany} classes={classes} onClose={() => setAddingMany(false)} onAdd={(added) => save((cs) => [...cs, ...added], 'Failed to add the classes. Please try again.', false)} />
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
