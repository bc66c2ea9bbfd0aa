// Upload progress card (bottom right): a bar per file and for the batch, Cancel, then a summary of
// uploaded, skipped and failed files with the reason for each failure.
import { useState } from 'react';
import { CircleAlert, CircleCheck, ChevronDown, ChevronUp, UploadCloud, X } from 'lucide-react';
import { Button, IconButton } from '../../../components/Button';
import { formatBytes } from '../../../lib/format';
import { useUploads, type UploadItem } from './uploads';
import styles from './UploadPanel.module.css';

function Bar({ value, tone, label }: { value: number; tone?: 'done' | 'failed'; label: string }) {
  return (
    <span className={styles.track} role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(value * 100)}>
      <span className={styles.fill} data-tone={tone} style={{ width: `${Math.min(100, value * 100)}%` }} />
    </span>
  );
}

function Row({ item }: { item: UploadItem }) {
  const value = item.status === 'done' ? 1 : item.size ? item.loaded / item.size : 0;
  return (
    <li className={styles.row} data-status={item.status}>
      <div className={styles.rowHead}>
        <span className={styles.name} title={item.name}>
          {item.name}
        </span>
        <span className={`${styles.state} tabular`}>
          {item.status === 'done' ? <CircleCheck aria-label="Uploaded" className={styles.ok} /> : null}
          {item.status === 'failed' ? <CircleAlert aria-label="Failed" className={styles.bad} /> : null}
          {item.status === 'uploading' || item.status === 'queued' ? `${Math.round(value * 100)}%` : null}
          {item.status === 'cancelled' ? 'Cancelled' : null}
        </span>
      </div>
      {item.status === 'failed' ? <p className={styles.reason}>{item.error}</p> : <Bar value={value} tone={item.status === 'done' ? 'done' : undefined} label={`Upload progress of ${item.name}`} />}
      {item.storedAs ? <p className={styles.note}>Saved as {item.storedAs}</p> : null}
    </li>
  );
}

export function UploadPanel() {
  const { active, finished, items, skipped, cancel, dismiss } = useUploads();
  const [collapsed, setCollapsed] = useState(false);
  if (!active && !finished) return null;
  const total = items.reduce((s, i) => s + i.size, 0);
  const loaded = items.reduce((s, i) => s + (i.status === 'done' ? i.size : i.status === 'failed' || i.status === 'cancelled' ? 0 : i.loaded), 0);
  const done = items.filter((i) => i.status === 'done').length;
  const failed = items.filter((i) => i.status === 'failed').length;
  const cancelled = items.filter((i) => i.status === 'cancelled').length;
  const settled = items.filter((i) => i.status !== 'queued' && i.status !== 'uploading').length;

  return (
    <section className={styles.panel} aria-label="Uploads" aria-live="polite" data-toast-avoid>
      <header className={styles.head}>
        <span className={styles.headIcon} data-tone={finished ? (failed ? 'bad' : 'ok') : undefined} aria-hidden="true">
          {finished ? failed ? <CircleAlert /> : <CircleCheck /> : <UploadCloud />}
        </span>
        <div className={styles.titles}>
          <h2 className={styles.title}>{active ? `Uploading ${items.length} file${items.length === 1 ? '' : 's'}` : 'Upload finished'}</h2>
          <p className={`${styles.sub} tabular`} data-testid="upload-summary">
            {active
              ? `${settled} of ${items.length} · ${formatBytes(loaded)} of ${formatBytes(total)}`
              : [`${done} uploaded`, skipped.length ? `${skipped.length} skipped` : null, failed ? `${failed} failed` : null, cancelled ? `${cancelled} cancelled` : null]
                  .filter(Boolean)
                  .join(' · ')}
          </p>
        </div>
        <IconButton label={collapsed ? 'Show upload details' : 'Hide upload details'} icon={collapsed ? <ChevronUp /> : <ChevronDown />} onClick={() => setCollapsed(!collapsed)} />
        {finished ? <IconButton label="Close uploads" icon={<X />} onClick={dismiss} /> : null}
      </header>
      {active ? <Bar value={total ? loaded / total : 0} label="Upload progress" /> : null}
      {!collapsed ? (
        <div className={styles.body}>
          {skipped.length ? (
            <p className={styles.skipped} role="note">
              Skipped {skipped.length} file{skipped.length === 1 ? '' : 's'} that {skipped.length === 1 ? 'is' : 'are'} not an accepted image type (JPEG, PNG, GIF, WebP, BMP, SVG): {skipped.slice(0, 5).join(', ')}
              {skipped.length > 5 ? ` and ${skipped.length - 5} more` : ''}
            </p>
          ) : null}
          {items.length ? (
            <ul className={styles.list}>
              {items.map((item) => (
                <Row key={item.key} item={item} />
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {active ? (
        <footer className={styles.foot}>
          <Button variant="secondary" size="sm" onClick={cancel}>
            Cancel
          </Button>
        </footer>
      ) : null}
    </section>
  );
}
