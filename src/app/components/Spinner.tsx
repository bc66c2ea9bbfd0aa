import { LoaderCircle } from 'lucide-react';
import styles from './Spinner.module.css';

export function Spinner({ size = 'md', label }: { size?: 'sm' | 'md' | 'lg'; label?: string }) {
  return <LoaderCircle className={`${styles.spinner} ${styles[size]}`} aria-hidden={label ? undefined : true} aria-label={label} role={label ? 'status' : undefined} />;
}
