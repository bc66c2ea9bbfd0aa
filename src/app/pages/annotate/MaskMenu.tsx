// The mask commands (issue 33): Convert to polygons (at the kernels' MASK_POLYGON_TOLERANCE),
// Convert to mask, Fill holes and Remove islands smaller than N px (a few sizes, or any size
// through IslandSizeDialog), each one undo step (editor.masks.run). Offered as items of a menu
// (the annotation list's row menu) and as the selection's context menu: a right-click on the canvas with the select, brush or eraser tool.
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Layers, PaintBucket, Pentagon, Sparkles } from 'lucide-react';
import { useEffect, useState, type ReactNode, type RefObject } from 'react';
import { maskActionApplies, type Editor, type MaskAction } from '../../../engine';
import { MASK_POLYGON_TOLERANCE } from '../../../workers/render-client';
import { toast } from '../../stores/toast';
import styles from './AnnotatePage.module.css';
import { askIslandSize, IslandSizeDialog } from './IslandSizeDialog';

/** The island sizes offered (pixels): parts smaller than this go. */
export const ISLAND_SIZES = [10, 50, 200, 1000] as const;

interface MaskCommand {
  label: string;
  icon: ReactNode;
  action: MaskAction;
  /** Asks for the size first (the action's minArea is then the one typed). */
  asksSize?: boolean;
}

const COMMANDS: MaskCommand[] = [
  { label: 'Convert to polygons', icon: <Pentagon />, action: { kind: 'to-polygons', tolerance: MASK_POLYGON_TOLERANCE } },
  { label: 'Convert to mask', icon: <Layers />, action: { kind: 'to-mask' } },
  { label: 'Fill holes', icon: <PaintBucket />, action: { kind: 'fill-holes' } },
  ...ISLAND_SIZES.map((n) => ({ label: `Remove islands smaller than ${n} px`, icon: <Sparkles />, action: { kind: 'remove-islands', minArea: n } as const })),
  { label: 'Remove islands smaller than…', icon: <Sparkles />, action: { kind: 'remove-islands', minArea: 0 }, asksSize: true },
];

/** The commands that apply to at least one of the shapes `ids`. */
export function maskCommandsFor(editor: Editor, ids: readonly string[]): MaskCommand[] {
  const shapes = ids.map((id) => editor.getAnnotation(id));
  return COMMANDS.filter((c) => shapes.some((a) => maskActionApplies(c.action.kind, a)));
}

function run(editor: Editor, action: MaskAction, ids: readonly string[]): void {
  try {
    editor.masks.run(action, ids);
  } catch (err) {
    toast(err instanceof Error ? err.message : String(err), 'danger');
  }
}

/** The commands as menu items, for the shapes `ids`. */
export function MaskCommandItems({ editor, ids }: { editor: Editor; ids: readonly string[] }) {
  const commands = maskCommandsFor(editor, ids);
  if (!commands.length) return null;
  return (
    <>
        <DropdownMenu.Label className={styles.menuLabel}>Mask</DropdownMenu.Label>
        {commands.map((c) => (
          <DropdownMenu.Item key={c.label} className={styles.menuItem} onSelect={() => (c.asksSize ? askIslandSize(editor, ids) : run(editor, c.action, ids))}>
            {c.icon}
            <span className={styles.menuItemText}>{c.label}</span>
          </DropdownMenu.Item>
        ))}
    </>
  );
}

/** The selection's context menu on the canvas: the mask commands at the pointer. */
export function SelectionMaskMenu({ editor, canvas }: { editor: Editor; canvas: RefObject<HTMLCanvasElement | null> }) {
  const [at, setAt] = useState<{ x: number; y: number; ids: string[] } | null>(null);

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const open = (e: MouseEvent) => {
      const tool = editor.getView().tool;
      if (editor.readOnly || (tool !== 'select' && tool !== 'brush' && tool !== 'eraser')) return;
      const ids = editor.getSelectedIds();
      if (!maskCommandsFor(editor, ids).length) return;
      setAt({ x: e.offsetX, y: e.offsetY, ids });
    };
    el.addEventListener('contextmenu', open);
    return () => el.removeEventListener('contextmenu', open);
  }, [editor, canvas]);

  return (
    <>
      <IslandSizeDialog run={(ed, minArea, ids) => run(ed, { kind: 'remove-islands', minArea }, ids)} />
      <DropdownMenu.Root open={at !== null} onOpenChange={(o) => !o && setAt(null)} modal={false}>
        <DropdownMenu.Trigger asChild>
          <span aria-hidden="true" style={{ position: 'absolute', left: at?.x ?? 0, top: at?.y ?? 0, width: 0, height: 0 }} />
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content className={styles.menu} align="start" sideOffset={2} collisionPadding={8} aria-label="Selection">
            {at ? <MaskCommandItems editor={editor} ids={at.ids} /> : null}
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
    </>
  );
}
