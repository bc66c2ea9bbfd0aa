import type { ReactNode } from 'react';
import { CircleCheck, CircleExclamationPoint, Info, TriangleExclamationPoint, X } from 'lucide-react';
import { IconButton } from './Button';
import styles from './Banner.module.css';

export type BannerTone = 'info' | 'warning' | 'danger' | 'success';

const ICONS: Record<BannerTone, ReactNode> = {
  info: <Info />,
  warning: <TriangleExclamationPoint />,
  danger: <CircleExclamationPoint />,
  success: <CircleCheck />,
};

export interface BannerProps {
  tone?: BannerTone;
  title?: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  onDismiss?(): void;
  dismissLabel?: string;
  className?: string;
}

export function Banner({ tone = 'info', title, children, actions, onDismiss, dismissLabel = 'Dismiss', className }: BannerProps) {
  return (
    <div className={[styles.banner, tone !== 'info' && styles[tone], className].filter(Boolean).join(' ')} role={tone === 'danger' || tone === 'warning' ? 'alert' : 'status'}>
      <span className={styles.icon} aria-hidden="true">
        {ICONS[tone]}
      </span>
      <div className={styles.text}>
        {title ? <div className={styles.title}>{title}</div> : null}
        {children ? <div className={title ? styles.body : undefined}>{children}</div> : null}
        {actions ? <div className={styles.actions}>{actions}</div> : null}
      </div>
      {onDismiss ? <IconButton className={styles.dismiss} label={dismissLabel} icon={<X />} onClick={onDismiss} /> : null}
    </div>
  );
}
