// Pieces shared by the Data and Archive tabs: the floating selection toolbar, menus, the alert host.
import type { ReactNode } from 'react';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { CircleAlert, X } from 'lucide-react';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { useAlerts } from './alerts';
import styles from './DataTab.module.css';

export function SelectionBar({ count, onClear, children }: { count: number; onClear(): void; children: ReactNode }) {
  if (!count) return null;
  return (
    <div className={styles.selectionBar} role="toolbar" aria-label="Selected images" data-toast-avoid>
      <span className={`${styles.selectionCount} tabular`}>{count.toLocaleString()} selected</span>
      <span className={styles.barSep} aria-hidden="true" />
      {children}
      <span className={styles.barSep} aria-hidden="true" />
      <Button variant="ghost" size="sm" icon={<X />} onClick={onClear} className={styles.barButton}>
        Clear
      </Button>
    </div>
  );
}

export function Menu({ trigger, label, children, align = 'start', side = 'bottom' }: { trigger: ReactNode; label: string; children: ReactNode; align?: 'start' | 'end' | 'center'; side?: 'top' | 'bottom' }) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>{trigger}</DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className={styles.menu} align={align} side={side} sideOffset={6} aria-label={label} collisionPadding={8}>
          {children}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

export function MenuItem({ children, onSelect, checked, icon, indent = 0 }: { children: ReactNode; onSelect(): void; checked?: boolean; icon?: ReactNode; indent?: number }) {
  const content = (
    <>
      <span className={styles.menuIcon} aria-hidden="true">
        {icon}
      </span>
      <span className={styles.menuText}>{children}</span>
    </>
  );
  if (checked !== undefined) {
    return (
      <DropdownMenu.CheckboxItem className={styles.menuItem} checked={checked} onSelect={onSelect} style={indent ? { paddingLeft: `calc(var(--space-2) + ${indent} * var(--space-4))` } : undefined}>
        {content}
      </DropdownMenu.CheckboxItem>
    );
  }
  return (
    <DropdownMenu.Item className={styles.menuItem} onSelect={onSelect} style={indent ? { paddingLeft: `calc(var(--space-2) + ${indent} * var(--space-4))` } : undefined}>
      {content}
    </DropdownMenu.Item>
  );
}

/** A stage picker or filter entry (moved to ../../../components/StageEntry, shared with the editor). */
export { StageEntry } from '../../../components/StageEntry';

export const MenuLabel = ({ children }: { children: ReactNode }) => <DropdownMenu.Label className={styles.menuLabel}>{children}</DropdownMenu.Label>;
export const MenuSeparator = () => <DropdownMenu.Separator className={styles.menuSeparator} />;

export function AlertHost() {
  const message = useAlerts((s) => s.messages[0] ?? null);
  const dismiss = useAlerts((s) => s.dismiss);
  return (
    <Dialog
      open={message !== null}
      onOpenChange={(o) => (!o ? dismiss() : undefined)}
      tone="danger"
      icon={<CircleAlert />}
      title="Something went wrong"
      description={message ?? undefined}
      footer={
        <Button variant="primary" onClick={dismiss} autoFocus>
          OK
        </Button>
      }
    />
  );
}

/** Names for a dialog: up to 10, then 'and N more' (spec sections 4 and 9). */
export function NameList({ names, limit = 10, expandable = false, expanded = false, onExpand }: { names: string[]; limit?: number; expandable?: boolean; expanded?: boolean; onExpand?(): void }) {
  const shown = expanded ? names : names.slice(0, limit);
  const more = names.length - shown.length;
  return (
    <div className={styles.nameList}>
      <ul>
        {shown.map((n, i) => (
          <li key={`${n}-${i}`}>{n}</li>
        ))}
      </ul>
      {more > 0 ? (
        expandable ? (
          <button type="button" className={styles.moreLink} onClick={onExpand}>
            Show {more.toLocaleString()} more
          </button>
        ) : (
          <p className={styles.moreText}>and {more.toLocaleString()} more</p>
        )
      ) : null}
    </div>
  );
}
