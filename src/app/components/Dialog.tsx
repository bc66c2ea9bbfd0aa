// Dialogs on Radix: focus trapped, Escape cancels, the first field (or the safe action) takes focus,
// and closing gives focus back to what opened it (issue 37). Radix returns focus to a
// Dialog.Trigger, but our dialogs open from plain buttons and menu items, so the opener is the
// element that had focus when `open` turned true.
import * as RadixDialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import { useLayoutEffect, useRef, type FormEvent, type ReactNode } from 'react';
import { IconButton } from './Button';
import styles from './Dialog.module.css';

export interface DialogProps {
  open: boolean;
  onOpenChange(open: boolean): void;
  title: string;
  description?: ReactNode;
  icon?: ReactNode;
  tone?: 'accent' | 'danger' | 'warning';
  children?: ReactNode;
  footer?: ReactNode;
  /** Left side of the footer (for example a destructive secondary action). */
  footerStart?: ReactNode;
  /** Renders the body and footer inside a form; Enter in a field submits. */
  onSubmit?(event: FormEvent<HTMLFormElement>): void;
  wide?: boolean;
  /** Blocks closing (Escape, outside click) while a request runs. */
  dismissible?: boolean;
}

/**
 * Remembers the focused element when the dialog opens (a layout effect runs before Radix moves
 * focus into the dialog), and answers the close handler that puts focus back on it. An opener
 * that has left the page meanwhile is skipped for Radix's own choice.
 */
function useFocusReturn(open: boolean) {
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (!open) return;
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || active === document.body) return void (opener.current = null);
    // A menu item goes with its menu: the button that opened the menu is the one to go back to.
    const menu = active.closest('[role="menu"]');
    const menuButton = menu?.id ? document.querySelector<HTMLElement>(`[aria-controls="${CSS.escape(menu.id)}"]`) : null;
    opener.current = menuButton ?? active;
  }, [open]);
  return (event: Event) => {
    const target = opener.current;
    opener.current = null;
    if (!target || !target.isConnected) return;
    event.preventDefault();
    target.focus({ preventScroll: true });
  };
}

export function Dialog({ open, onOpenChange, title, description, icon, tone = 'accent', children, footer, footerStart, onSubmit, wide, dismissible = true }: DialogProps) {
  const returnFocus = useFocusReturn(open);
  const inner = (
    <>
      {children ? <div className={styles.body}>{children}</div> : null}
      {footer || footerStart ? (
        <div className={styles.footer} data-dialog-footer="">
          {footerStart ? <div className={styles.footerStart}>{footerStart}</div> : null}
          {footer}
        </div>
      ) : null}
    </>
  );
  return (
    <RadixDialog.Root open={open} onOpenChange={(next) => (dismissible || next ? onOpenChange(next) : undefined)}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className={styles.overlay} />
        <RadixDialog.Content
          className={[styles.content, wide && styles.wide].filter(Boolean).join(' ')}
          onEscapeKeyDown={(e) => (!dismissible ? e.preventDefault() : undefined)}
          onPointerDownOutside={(e) => (!dismissible ? e.preventDefault() : undefined)}
          onCloseAutoFocus={returnFocus}
        >
          <div className={styles.header}>
            {icon ? (
              <span className={styles.headerIcon} data-tone={tone} aria-hidden="true">
                {icon}
              </span>
            ) : null}
            <div className={styles.titles}>
              <RadixDialog.Title className={styles.title}>{title}</RadixDialog.Title>
              {description ? (
                <RadixDialog.Description className={styles.description}>{description}</RadixDialog.Description>
              ) : (
                <RadixDialog.Description className="visually-hidden">{title}</RadixDialog.Description>
              )}
            </div>
          </div>
          {onSubmit ? (
            <form
              className={styles.form}
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                onSubmit(e);
              }}
            >
              {inner}
            </form>
          ) : (
            inner
          )}
          <RadixDialog.Close asChild>
            <IconButton className={styles.close} label="Close" icon={<X />} disabled={!dismissible} showTooltip={false} />
          </RadixDialog.Close>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
