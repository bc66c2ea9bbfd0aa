// The class picker beside the palette (spec section 2): shown for the drawing tools, and for
// Select when annotations are selected (then choosing a class relabels them, one undo step).
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, ChevronDown, Plus } from 'lucide-react';
import type { AnnotationType, ProjectClass } from '../../../contract/projects';
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
}

export const TYPE_NAMES: Record<AnnotationType, string> = { box: 'Box', polygon: 'Polygon', polyline: 'Polyline', keypoint: 'Keypoint' };

export function ClassPicker({ classes, type, value, placeholder, onChoose, onAddClass }: ClassPickerProps) {
  const listed = type ? classes.filter((c) => c.type === type) : classes;
  const current = classes.find((c) => c.name === value);
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <button type="button" className={styles.classTrigger} aria-label={`Class: ${current?.name ?? placeholder}`}>
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
            {listed.map((c) => (
              <DropdownMenu.Item key={c.name} className={styles.menuItem} onSelect={() => onChoose(c.name)}>
                <span className={styles.classDot} style={{ background: c.color }} />
                <span className={styles.menuItemText}>{c.name}</span>
                {c.name === value ? <Check aria-hidden="true" className={styles.menuCheck} /> : null}
              </DropdownMenu.Item>
            ))}
          </div>
          <DropdownMenu.Separator className={styles.menuSeparator} />
          <DropdownMenu.Item className={styles.menuItem} onSelect={onAddClass}>
            <Plus aria-hidden="true" />
            <span className={styles.menuItemText}>Add New {type ? `${TYPE_NAMES[type]} ` : ''}Class</span>
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
