import { CircleCheck, CircleExclamationPoint, X } from 'lucide-react';
import { useToasts } from '../stores/toast';
import styles from './Toaster.module.css';

export function Toaster() {
  const toasts = useToasts((s) => s.toasts);
  const dismiss = useToasts((s) => s.dismiss);
  return (
    <div className={styles.region} role="status" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={[styles.toast, t.tone !== 'neutral' && styles[t.tone]].filter(Boolean).join(' ')}>
          {t.tone !== 'neutral' ? <span className={styles.icon} aria-hidden="true">{t.tone === 'success' ? <CircleCheck /> : <CircleExclamationPoint />}</span> : null}
          <span>{t.message}</span>
          <button type="button" className={styles.close} aria-label="Dismiss message" onClick={() => dismiss(t.id)}>
            <X aria-hidden="true" />
          </button>
        </div>
      ))}
    </div>
  );
}
