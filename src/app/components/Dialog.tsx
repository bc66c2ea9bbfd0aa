// Dialogs on Radix: focus trapped, Escape cancels, the first field (or the safe action) takes focus.
import * as RadixDialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import type { FormEvent, ReactNode } from 'react';
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

export function Dialog({ open, onOpenChange, title, description, icon, tone = 'accent', children, footer, footerStart, onSubmit, wide, dismissible = true }: DialogProps) {
  const inner = (
    <>
      {children ? <div className={styles.body}>{children}</div> : null}
      {footer || footerStart ? (
        <div className={styles.footer}>
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
