import { forwardRef, useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';
import { CircleExclamationPoint } from 'lucide-react';
import styles from './TextField.module.css';

interface FieldChrome {
  label: string;
  error?: string | null;
  hint?: ReactNode;
  optional?: boolean;
  leadingIcon?: ReactNode;
  trailing?: ReactNode;
}

function Chrome({ id, label, error, hint, optional, children }: FieldChrome & { id: string; children: ReactNode }) {
  return (
    <div className={styles.field}>
      <div className={styles.labelRow}>
        <label htmlFor={id} className={styles.label}>
          {label}
        </label>
        {optional ? <span className={styles.optional}>Optional</span> : null}
      </div>
      {children}
      {error ? (
        <p id={`${id}-error`} className={styles.error} role="alert">
          <CircleExclamationPoint aria-hidden="true" />
          <span>{error}</span>
        </p>
      ) : hint ? (
        <p id={`${id}-hint`} className={styles.hint}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export type TextFieldProps = FieldChrome & InputHTMLAttributes<HTMLInputElement>;

export const TextField = forwardRef<HTMLInputElement, TextFieldProps>(function TextField(
  { label, error, hint, optional, leadingIcon, trailing, id: givenId, className, ...rest },
  ref,
) {
  const autoId = useId();
  const id = givenId ?? autoId;
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  const classes = [styles.input, leadingIcon && styles.withLeading, trailing && styles.withTrailing, className].filter(Boolean).join(' ');
  return (
    <Chrome id={id} label={label} error={error} hint={hint} optional={optional}>
      <div className={styles.control}>
        {leadingIcon ? (
          <span className={styles.leading} aria-hidden="true">
            {leadingIcon}
          </span>
        ) : null}
        <input ref={ref} id={id} className={classes} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...rest} />
        {trailing ? <span className={styles.trailing}>{trailing}</span> : null}
      </div>
    </Chrome>
  );
});

export type TextAreaFieldProps = Omit<FieldChrome, 'leadingIcon' | 'trailing'> & TextareaHTMLAttributes<HTMLTextAreaElement>;

export const TextAreaField = forwardRef<HTMLTextAreaElement, TextAreaFieldProps>(function TextAreaField(
  { label, error, hint, optional, id: givenId, className, rows = 3, ...rest },
  ref,
) {
  const autoId = useId();
  const id = givenId ?? autoId;
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <Chrome id={id} label={label} error={error} hint={hint} optional={optional}>
      <textarea ref={ref} id={id} rows={rows} className={[styles.input, className].filter(Boolean).join(' ')} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...rest} />
    </Chrome>
  );
});
