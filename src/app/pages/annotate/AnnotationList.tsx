// The 'Annotations' sidebar (spec section 2): newest first, one row per annotation with its
// shape icon, name, type, colour, delete and hide buttons; virtualised so 100k rows scroll
// smoothly. Clicking a row selects the shape and brings it into view (Shift/Ctrl/Cmd adds).
// For a role that may not edit (`readOnlyReason`), rows have no Delete button and Copy Previous
// and Remove All stay in place, disabled, with the reason as their tooltip. The sidebar also holds
// the History view (issue 14): a toggle in the header (V) shows it in place of the list. A row's
// colour dot is a menu of the classes of its shape's type (issue 19): choosing one relabels the
// shape, one undo step, as the class picker and the number keys do. For masks and polygons the
// same menu has the mask commands (issue 33: Convert to polygons / to mask, Fill holes, Remove
// islands), as the selection's context menu on the canvas has.
//
// Rows have one fixed height, so the window of rows is arithmetic on the scroll offset: a render
// costs the rows in view whatever the document's size (a general virtualizer kept a measurement
// object per row, 100k of them rebuilt when a large document finished loading: a long task), and
// rows are read from the engine's paint order by index, without copying or reversing it. A row's
// buttons sit beside the listbox, not in its option (issue 37: no control inside an option).
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, ChevronsLeft, ChevronsRight, ClipboardCopy, CircleDot, Eye, EyeOff, History, Layers, Pentagon, PersonStanding, RectangleHorizontal, Spline, Trash2, type LucideIcon } from 'lucide-react';
import { memo, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { ProjectClass } from '../../../contract/projects';
import { predictionOf, type AnnotationType as ShapeType, type Editor, type EditorAnnotation, type ViewState } from '../../../engine';
import { Button, IconButton } from '../../components/Button';
import { Spinner } from '../../components/Spinner';
import { Tooltip } from '../../components/Tooltip';
import { classesForShape } from '../../editor-session/classKeys';
import styles from './AnnotatePage.module.css';
import { useShortcutLabel } from './hooks/useShortcuts';
import { MaskCommandItems } from './MaskMenu';

const ROW_HEIGHT = 40;
/** Rows rendered beyond each edge of the view. */
const OVERSCAN = 6;

const SHAPE_ICON: Record<ShapeType, LucideIcon> = { box: RectangleHorizontal, polygon: Pentagon, polyline: Spline, keypoint: CircleDot, segmentation: Layers, skeleton: PersonStanding };
/** The list's word for each shape type; a mask is a Mask, as its tool is its own entry (issue 33). */
const SHAPE_TYPE_LABEL: Record<ShapeType, string> = { box: 'Box', polygon: 'Polygon', polyline: 'Polyline', keypoint: 'Keypoint', segmentation: 'Mask', skeleton: 'Skeleton' };

export interface AnnotationListProps {
  editor: Editor;
  view: ViewState;
  documentVersion: number;
  classColor(name: string): string;
  collapsed: boolean;
  onToggleCollapsed(): void;
  canCopyPrevious: boolean;
  copyingPrevious: boolean;
  onCopyPrevious(): void;
  onRemoveAll(): void;
  /** Why this role may not edit ('Your role (Viewer) cannot edit annotations'); null when it may. */
  readOnlyReason?: string | null;
  /** The image's annotations are still loading: the list shows that, not the previous image's. */
  loading?: boolean;
  /** The History view is shown in place of the list. */
  historyOpen?: boolean;
  onToggleHistory?(): void;
  /** The History view's content. */
  history?: ReactNode;
  /** Above the rows: what the list shows when it is not the current document (an earlier version). */
  notice?: ReactNode;
  /** The empty state's title and line, when they are not the current document's. */
  empty?: { title: string; text: string };
  /** Between the rows and the footer: the Attributes panel of the selection (./AttributesPanel.tsx). */
  attributes?: ReactNode;
  /** The project's classes: with `onSetClass`, each editable row offers the classes of its type. */
  classes?: readonly ProjectClass[];
  /** Relabels one shape (one undo step). */
  onSetClass?(id: string, className: string): void;
  /**
   * Below 768 px (issue 37, reflow): the open sidebar is a sheet over the canvas, a dialog that
   * takes focus when it opens and closes on Escape (`onToggleCollapsed`); collapsed, its strip's
   * button opens it.
   */
  sheet?: boolean;
}

// Long because it is one virtualised list: the rows, the header's actions and the keyboard share
// the virtualizer and the selection it reads; the row itself is its own component.
export function AnnotationList({
  editor,
  view,
  documentVersion,
  classColor,
  collapsed,
  onToggleCollapsed,
  canCopyPrevious,
  copyingPrevious,
  onCopyPrevious,
  onRemoveAll,
  readOnlyReason = null,
  loading = false,
  historyOpen = false,
  onToggleHistory,
  history,
  notice,
  attributes,
  empty,
  classes,
  onSetClass,
  sheet = false,
}: AnnotationListProps) {
  void documentVersion; // a new version re-renders the list: rows are read from the engine below
  const asideRef = useRef<HTMLElement>(null);
  const open = sheet && !collapsed;
  // The sheet takes focus when it opens (on its Close button).
  useEffect(() => {
    if (open) asideRef.current?.querySelector<HTMLElement>('[data-sheet-close]')?.focus();
  }, [open]);
  const sheetProps = open
    ? {
        ref: asideRef,
        role: 'dialog',
        'data-sheet': true,
        onKeyDown: (e: KeyboardEvent) => {
          // A menu or a dialog opened from the sheet closes first; a tooltip's Escape (which marks
          // the event handled) does not keep the sheet open.
          if (e.key !== 'Escape' || (e.target as HTMLElement).closest('[role="menu"], [role="dialog"]:not([data-sheet]), [role="alertdialog"]')) return;
          e.preventDefault();
          e.stopPropagation();
          onToggleCollapsed();
        },
      }
    : {};
  const collapseLabel = (what: string) => (sheet ? `Close ${what}` : `Collapse ${what}`);
  const total = loading ? 0 : editor.annotationCount;
  const editable = readOnlyReason === null;
  const selectedCount = view.selected.size;
  const allHidden = total > 0 && view.hidden.size >= total && editor.allHidden();

  const historyKey = useShortcutLabel('history');
  const historyToggle = onToggleHistory ? (
    <IconButton
      label={`Version history${historyKey ? ` (${historyKey})` : ''}`}
      icon={<History />}
      tooltipSide="left"
      onClick={onToggleHistory}
      aria-pressed={historyOpen}
      aria-keyshortcuts={historyKey ?? undefined}
      className={styles.collapseButton}
      data-active={historyOpen || undefined}
    />
  ) : null;

  if (collapsed) {
    return (
      <aside className={styles.sidebar} data-collapsed="true" aria-label={historyOpen ? 'History' : 'Annotations'}>
        <IconButton label={historyOpen ? 'Show history' : 'Show annotations'} icon={<ChevronsLeft />} tooltipSide="left" onClick={onToggleCollapsed} className={styles.collapseButton} data-sheet-opener={sheet || undefined} aria-haspopup={sheet ? 'dialog' : undefined} />
        {historyToggle}
      </aside>
    );
  }

  if (historyOpen) {
    return (
      <aside className={styles.sidebar} aria-label="History" {...sheetProps}>
        <div className={styles.sidebarHeader}>
          <h2 className={styles.sidebarTitle}>History</h2>
          <span className={styles.sidebarCount} />
          {historyToggle}
          <IconButton label={collapseLabel('history')} data-sheet-close icon={<ChevronsRight />} tooltipSide="left" onClick={onToggleCollapsed} className={styles.collapseButton} />
        </div>
        {history}
      </aside>
    );
  }

  return (
    <aside className={styles.sidebar} aria-label="Annotations" {...sheetProps}>
      <div className={styles.sidebarHeader}>
        <h2 className={styles.sidebarTitle}>Annotations</h2>
        <span className={styles.sidebarCount} aria-live="polite">
          {loading ? '' : selectedCount > 0 ? `${selectedCount.toLocaleString()}/${total.toLocaleString()}` : total.toLocaleString()}
        </span>
        {historyToggle}
        <IconButton label={collapseLabel('annotations')} data-sheet-close icon={<ChevronsRight />} tooltipSide="left" onClick={onToggleCollapsed} className={styles.collapseButton} />
      </div>
      {notice && !loading ? notice : null}
      {loading ? (
        <div className={styles.sidebarEmpty}>
          <Spinner />
          <p>Loading annotations...</p>
        </div>
      ) : total === 0 ? (
        <div className={styles.sidebarEmpty}>
          <Layers aria-hidden="true" />
          <p>{empty?.title ?? 'No annotations yet'}</p>
          <span>{empty?.text ?? (editable ? 'Pick a tool on the left and draw on the image.' : 'Annotators, reviewers, admins and owners can draw on this image.')}</span>
        </div>
      ) : (
        <Rows total={total}>
          {(first, end) => {
            // Newest first: row i is the i-th from the top of paint order.
            const order = editor.paintOrder();
            const options = [];
            const actions = [];
            for (let i = first; i < end; i++) {
              const a = editor.getAnnotation(order[order.length - 1 - i]!);
              if (!a) continue;
              const hidden = view.hidden.has(a.id);
              options.push(<RowOption key={a.id} annotation={a} top={i * ROW_HEIGHT} selected={view.selected.has(a.id)} hidden={hidden} editor={editor} />);
              actions.push(
                <RowActions key={a.id} annotation={a} top={i * ROW_HEIGHT} hidden={hidden} color={classColor(a.class)} editor={editor} editable={editable} classes={classes} onSetClass={onSetClass} />,
              );
            }
            return { options, actions };
          }}
        </Rows>
      )}
      {!loading ? attributes : null}
      <div className={styles.sidebarFooter}>
        <Button size="sm" variant="ghost" icon={allHidden ? <Eye /> : <EyeOff />} disabled={total === 0} onClick={() => editor.toggleAll()}>
          {allHidden ? 'Show All' : 'Hide All'}
        </Button>
        <Button size="sm" variant="ghost" icon={<ClipboardCopy />} disabled={!canCopyPrevious || loading} disabledReason={readOnlyReason} busy={copyingPrevious} onClick={onCopyPrevious}>
          Copy Previous
        </Button>
        <Button size="sm" variant="dangerGhost" icon={<Trash2 />} disabled={total === 0} disabledReason={readOnlyReason} onClick={onRemoveAll}>
          Remove All
        </Button>
      </div>
    </aside>
  );
}

let lastListHeight = 0;

/**
 * The scrolling list: renders rows [first, end) of `total` for its scroll offset and height, the
 * options in the listbox and their buttons beside it (laid over the options' right ends).
 */
function Rows({ total, children }: { total: number; children: (first: number, end: number) => { options: ReactNode; actions: ReactNode } }) {
  const ref = useRef<HTMLDivElement>(null);
  // The list's last height: a list mounted again (a new image's document) renders the rows it
  // shows in one pass, not a few rows first and the rest after the layout effect measured it.
  const [box, setBox] = useState(() => ({ top: 0, height: lastListHeight }));
  useLayoutEffect(() => {
    const el = ref.current!;
    const read = () => {
      lastListHeight = el.clientHeight;
      setBox((b) => (b.top === el.scrollTop && b.height === el.clientHeight ? b : { top: el.scrollTop, height: el.clientHeight }));
    };
    read();
    el.addEventListener('scroll', read, { passive: true });
    const ro = new ResizeObserver(read);
    ro.observe(el);
    return () => {
      el.removeEventListener('scroll', read);
      ro.disconnect();
    };
  }, []);
  const first = Math.max(0, Math.min(total, Math.floor(box.top / ROW_HEIGHT)) - OVERSCAN);
  const end = Math.min(total, Math.ceil((box.top + box.height) / ROW_HEIGHT) + OVERSCAN);
  const { options, actions } = children(first, end);
  return (
    <div ref={ref} className={styles.rows}>
      <div style={{ height: total * ROW_HEIGHT, position: 'relative' }}>
        <div className={styles.rowList} role="listbox" aria-label="Annotation list" aria-multiselectable="true">
          {options}
        </div>
        {actions}
      </div>
    </div>
  );
}

interface RowProps {
  annotation: EditorAnnotation;
  top: number;
  selected: boolean;
  hidden: boolean;
  color: string;
  editor: Editor;
  editable: boolean;
  classes?: readonly ProjectClass[];
  onSetClass?(id: string, className: string): void;
}

/** The row's colour dot as a menu of the classes the shape may be given (and, for masks and polygons, the mask commands). */
function RowClassMenu({ annotation: a, color, classes, onSetClass, editor }: { annotation: EditorAnnotation; color: string; classes: readonly ProjectClass[]; onSetClass(id: string, className: string): void; editor: Editor }) {
  const listed = classesForShape(classes, a.type);
  return (
    <DropdownMenu.Root modal={false}>
      <Tooltip content="Change class" side="left">
        <DropdownMenu.Trigger asChild>
          <button type="button" className={styles.rowClassButton} aria-label={`Change class (${a.class})`} onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
            <span className={styles.classDot} style={{ background: color }} aria-hidden="true" />
          </button>
        </DropdownMenu.Trigger>
      </Tooltip>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className={styles.menu} side="left" align="start" sideOffset={6} collisionPadding={8} aria-label={`Class of this ${SHAPE_TYPE_LABEL[a.type].toLowerCase()}`} onClick={(e) => e.stopPropagation()}>
          <DropdownMenu.Label className={styles.menuLabel}>{SHAPE_TYPE_LABEL[a.type]} classes</DropdownMenu.Label>
          {listed.length === 0 ? <div className={styles.menuEmpty}>No class may be given to this {SHAPE_TYPE_LABEL[a.type].toLowerCase()}</div> : null}
          <DropdownMenu.RadioGroup value={a.class} onValueChange={(name) => onSetClass(a.id, name)}>
            <div className={styles.menuScroll}>
              {listed.map((c) => (
                <DropdownMenu.RadioItem key={c.name} value={c.name} className={styles.menuItem}>
                  <span className={styles.classDot} style={{ background: c.color }} />
                  <span className={styles.menuItemText}>{c.name}</span>
                  <DropdownMenu.ItemIndicator className={styles.menuCheck}>
                    <Check aria-hidden="true" />
                  </DropdownMenu.ItemIndicator>
                </DropdownMenu.RadioItem>
              ))}
            </div>
          </DropdownMenu.RadioGroup>
          {a.type === 'segmentation' || a.type === 'polygon' ? (
            <>
              <DropdownMenu.Separator className={styles.menuSeparator} />
              <MaskCommandItems editor={editor} ids={[a.id]} />
            </>
          ) : null}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** A model's prediction: its score, and whether it waits for review (issue 34). */
function PredictionTag({ annotation }: { annotation: EditorAnnotation }) {
  const source = predictionOf(annotation);
  if (!source) return null;
  return (
    <span className={styles.rowPrediction} data-pending={source.pending || undefined} title={source.pending ? 'A model drew it: Enter accepts it, Delete rejects it' : 'A model drew it; accepted'}>
      <span className="visually-hidden">{source.pending ? 'pending' : 'model'} </span>
      {source.score.toFixed(2)}
    </span>
  );
}

/** A row's option: the shape's icon, class and type; clicking or Enter / Space selects it. */
const RowOption = memo(function RowOption({ annotation: a, top, selected, hidden, editor }: Pick<RowProps, 'annotation' | 'top' | 'selected' | 'hidden' | 'editor'>) {
  const Icon = SHAPE_ICON[a.type];
  const choose = (add: boolean) => {
    if (hidden) return;
    editor.select([a.id], add ? 'toggle' : 'replace');
    editor.bringIntoView(a.id);
  };
  return (
    <div
      className={styles.row}
      role="option"
      aria-selected={selected}
      data-hidden={hidden || undefined}
      style={{ transform: `translateY(${top}px)` }}
      tabIndex={0}
      onClick={(e) => choose(e.shiftKey || e.ctrlKey || e.metaKey)}
      onKeyDown={(e) => {
        if (e.target !== e.currentTarget || (e.key !== 'Enter' && e.key !== ' ')) return;
        e.preventDefault();
        e.stopPropagation();
        choose(e.shiftKey);
      }}
    >
      <Icon className={styles.rowIcon} aria-hidden="true" />
      <span className={styles.rowText}>
        <span className={styles.rowName}>{a.class}</span>
        <span className={styles.rowType}>
          {SHAPE_TYPE_LABEL[a.type]}
          <PredictionTag annotation={a} />
        </span>
      </span>
    </div>
  );
});

/**
 * A row's buttons (class menu, hide, delete): laid over the right end of its option, but outside
 * the listbox in the document, so an option holds no control (axe nested-interactive, issue 37).
 */
const RowActions = memo(function RowActions({ annotation: a, top, hidden, color, editor, editable, classes, onSetClass }: Omit<RowProps, 'selected'>) {
  return (
    <div className={styles.rowActions} role="group" aria-label={`${a.class} (${SHAPE_TYPE_LABEL[a.type]})`} data-testid="annotation-row-actions" style={{ transform: `translateY(${top}px)` }}>
      {editable && classes && onSetClass ? <RowClassMenu annotation={a} color={color} classes={classes} onSetClass={onSetClass} editor={editor} /> : <span className={styles.classDot} style={{ background: color }} aria-hidden="true" />}
      <IconButton
        label={hidden ? 'Show annotation' : 'Hide annotation'}
        icon={hidden ? <EyeOff /> : <Eye />}
        className={styles.rowAction}
        tooltipSide="left"
        onClick={() => editor.toggleHidden(a.id)}
      />
      {editable ? <IconButton label="Delete annotation" icon={<Trash2 />} className={styles.rowAction} tooltipSide="left" onClick={() => editor.execute('delete', { ids: [a.id] })} /> : null}
    </div>
  );
});
