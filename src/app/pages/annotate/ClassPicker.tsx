// The class picker beside the palette (spec section 2): shown for the drawing tools, and for
// Select when annotations are selected (then choosing a class relabels them, one undo step), and in
// the Auto-Annotate bar (the class of accepted masks). The number keys pick the n-th entry.
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, ChevronDown, Plus, Settings2 } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import type { AnnotationType, ProjectClass } from '../../../contract/projects';
import { TYPE_NAMES } from '../../editor-session/classKeys';
import styles from './AnnotatePage.module.css';

export interface ClassPickerProps {
  classes: ProjectClass[];
  /** The type the list is for (the tool's, or the selection's); null lists every class. */
  type: AnnotationType | null;
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

export function ClassPicker({ classes, type, value, placeholder, onChoose, onAddClass, onManageClasses, attention = 0, label = 'Class' }: ClassPickerProps) {
  const listed = type ? classes.filter((c) => c.type === type) : classes;
  const current = classes.find((c) => c.name === value);
  const [open, setOpen] = useState(false);
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
            {listed.map((c, i) => (
              <DropdownMenu.Item key={c.name} className={styles.menuItem} onSelect={() => onChoose(c.name)} aria-keyshortcuts={i < 9 ? String(i + 1) : undefined}>
                <span className={styles.classDot} style={{ background: c.color }} />
                <span className={styles.menuItemText}>{c.name}</span>
                {c.name === value ? <Check aria-hidden="true" className={styles.menuCheck} /> : null}
                {i < 9 ? (
                  <kbd className={styles.menuKey} aria-hidden="true">
                    {i + 1}
                  </kbd>
                ) : null}
              </DropdownMenu.Item>
            ))}
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
