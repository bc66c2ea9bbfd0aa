import { forwardRef, type ButtonHTMLAttributes, type ReactNode } from 'react';
import { Spinner } from './Spinner';
import { Tooltip } from './Tooltip';
import styles from './Button.module.css';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger' | 'dangerGhost';
export type ButtonSize = 'sm' | 'md';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  /** sm = 32 px (compact), md = 40 px. */
  size?: ButtonSize;
  /** While a request runs: spinner, disabled, and the busy label (for example 'Creating...'). */
  busy?: boolean;
  busyLabel?: string;
  icon?: ReactNode;
  fullWidth?: boolean;
}

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  { variant = 'secondary', size = 'md', busy = false, busyLabel, icon, fullWidth, className, children, disabled, type = 'button', ...rest },
  ref,
) {
  const classes = [styles.button, styles[variant], size === 'sm' && styles.sm, fullWidth && styles.full, className].filter(Boolean).join(' ');
  return (
    <button ref={ref} type={type} className={classes} disabled={disabled || busy} data-busy={busy || undefined} aria-busy={busy || undefined} {...rest}>
      {busy ? (
        <span className={styles.icon}>
          <Spinner size={size === 'sm' ? 'sm' : 'md'} />
        </span>
      ) : icon ? (
        <span className={styles.icon} aria-hidden="true">
          {icon}
        </span>
      ) : null}
      {busy && busyLabel ? busyLabel : children}
    </button>
  );
});

export interface IconButtonProps extends Omit<ButtonProps, 'children' | 'icon' | 'busyLabel'> {
  /** Accessible name, also shown as the tooltip. */
  label: string;
  icon: ReactNode;
  tooltipSide?: 'top' | 'right' | 'bottom' | 'left';
  showTooltip?: boolean;
}

export const IconButton = forwardRef<HTMLButtonElement, IconButtonProps>(function IconButton(
  { label, icon, variant = 'ghost', size = 'sm', className, tooltipSide = 'top', showTooltip = true, ...rest },
  ref,
) {
  const button = (
    <Button ref={ref} variant={variant} size={size} aria-label={label} className={[styles.iconOnly, className].filter(Boolean).join(' ')} icon={icon} {...rest} />
  );
  return showTooltip ? (
    <Tooltip content={label} side={tooltipSide}>
      {button}
    </Tooltip>
  ) : (
    button
  );
});
