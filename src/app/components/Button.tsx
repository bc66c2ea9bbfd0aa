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
  /**
   * The current role may not take this action: the button stays in place but does nothing
   * (aria-disabled, so it still takes focus and hover) and its tooltip gives this reason.
   */
  disabledReason?: string | null;
}

const BaseButton = forwardRef<HTMLButtonElement, ButtonProps>(function BaseButton(
  { variant = 'secondary', size = 'md', busy = false, busyLabel, icon, fullWidth, className, children, disabled, disabledReason, type = 'button', onClick, ...rest },
  ref,
) {
  const classes = [styles.button, styles[variant], size === 'sm' && styles.sm, fullWidth && styles.full, className].filter(Boolean).join(' ');
  const blocked = Boolean(disabledReason);
  return (
    <button
      ref={ref}
      type={type}
      className={classes}
      disabled={(disabled || busy) && !blocked}
      aria-disabled={blocked || undefined}
      data-busy={busy || undefined}
      aria-busy={busy || undefined}
      onClick={blocked ? (e) => e.preventDefault() : onClick}
      {...rest}
    >
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

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(props, ref) {
  const button = <BaseButton ref={ref} {...props} />;
  return props.disabledReason ? <Tooltip content={props.disabledReason}>{button}</Tooltip> : button;
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
    <BaseButton ref={ref} variant={variant} size={size} aria-label={label} className={[styles.iconOnly, className].filter(Boolean).join(' ')} icon={icon} {...rest} />
  );
  // A refused action's tooltip says why; its accessible name stays the label.
  return showTooltip || rest.disabledReason ? (
    <Tooltip content={rest.disabledReason || label} side={tooltipSide}>
      {button}
    </Tooltip>
  ) : (
    button
  );
});
