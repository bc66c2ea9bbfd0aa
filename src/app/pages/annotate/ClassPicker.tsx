// The class picker beside the palette (spec section 2): shown for the drawing tools (the classes
// the tool may draw), and for Select when annotations are selected (the classes they may all be
// given; choosing one relabels them, one undo step), and in the Auto-Annotate bar (the class of
// accepted masks). Each class shows its number key: its place in the project, the same whatever
// the tool (issue 33), so a list may skip numbers.
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, ChevronDown, Plus, Settings2 } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import type { ClassTool, ProjectClass } from '../../../contract/projects';
import { classesForTool, classKeyOf, TYPE_NAMES } from '../../editor-session/classKeys';
import { shortcutKeyLabel, type ShortcutAction } from '../../../contract/preferences';
import styles from './AnnotatePage.module.css';
import { useShortcuts } from './hooks/useShortcuts';

export interface ClassPickerProps {
  classes: ProjectClass[];
  /** The class tool the list is for (the drawing tool's, or the selection's); null lists every class. */
  type: ClassTool | null;
  /** The classes to list (default: those `type` allows). */
  listed?: readonly ProjectClass[];
  value: string | null;
  /** 'Mixed' when the selection holds several classes. */
  placeholder: string;
  onChoose(name: string): void;
  onAddClass(): void;
  /** The way to the project's Classes tab, under the list (absent: not offered). */
  onManageClasses?(): void;
  /** A change opens the menu by itself (a mask waits for its class). */
  attention?: number;
  /** The trigger's accessible name starts with this (default 'Class'). */
  label?: string;
}

export function ClassPicker({ classes, type, listed: given, value, placeholder, onChoose, onAddClass, onManageClasses, attention = 0, label = 'Class' }: ClassPickerProps) {
  const listed = given ?? classesForTool(classes, type);
  const current = classes.find((c) => c.name === value);
  const [open, setOpen] = useState(false);
  // The digits' keys as this person has them (issue 37); none while single-key shortcuts are off.
  const classKeys = useShortcuts((s) => (s.shortcuts.enabled ? s.shortcuts.action_keys : null));
  const seen = useRef(attention);
  useEffect(() => {
    if (attention === seen.current) return;
    seen.current = attention;
    setOpen(true);
  }, [attention]);
  return (
    <DropdownMenu.Root open={open} onOpenChange={setOpen}>
      <DropdownMenu.Trigger asChild>
        <button type="button" className={styles.classTrigger} aria-label={`${label}: ${current?.name ?? placeholder}`}>
          <span className={styles.classDot} style={{ background: current?.color ?? 'transparent' }} data-empty={!current || undefined} />
          <span className={styles.classTriggerName}>{current?.name ?? placeholder}</span>
          <ChevronDown aria-hidden="true" />
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className={styles.menu} sideOffset={6} align="start" onCloseAutoFocus={(e) => e.preventDefault()}>
          <DropdownMenu.Label className={styles.menuLabel}>{type ? `${TYPE_NAMES[type]} classes` : 'Classes'}</DropdownMenu.Label>
          {listed.length === 0 ? <div className={styles.menuEmpty}>No {type ? `${TYPE_NAMES[type].toLowerCase()} ` : ''}classes yet</div> : null}
          <div className={styles.menuScroll}>
            {listed.map((c) => {
              const digit = classKeyOf(classes, c.name);
              const key = digit && classKeys ? shortcutKeyLabel(classKeys[`class_${digit}` as ShortcutAction]) : null;
              return (
                <DropdownMenu.Item key={c.name} className={styles.menuItem} onSelect={() => onChoose(c.name)} aria-keyshortcuts={key ?? undefined}>
                  <span className={styles.classDot} style={{ background: c.color }} />
                  <span className={styles.menuItemText}>{c.name}</span>
                  {c.name === value ? <Check aria-hidden="true" className={styles.menuCheck} /> : null}
                  {key ? (
                    <kbd className={styles.menuKey} aria-hidden="true">
                      {key}
                    </kbd>
                  ) : null}
                </DropdownMenu.Item>
              );
            })}
          </div>
          <DropdownMenu.Separator className={styles.menuSeparator} />
          <DropdownMenu.Item className={styles.menuItem} onSelect={onAddClass}>
            <Plus aria-hidden="true" />
            <span className={styles.menuItemText}>Add New {type ? `${TYPE_NAMES[type]} ` : ''}Class</span>
          </DropdownMenu.Item>
          {onManageClasses ? (
            <DropdownMenu.Item className={styles.menuItem} onSelect={onManageClasses}>
              <Settings2 aria-hidden="true" />
              <span className={styles.menuItemText}>Manage Classes</span>
            </DropdownMenu.Item>
          ) : null}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
