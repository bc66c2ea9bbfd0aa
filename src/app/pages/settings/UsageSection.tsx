// Settings > Usage (issue 6): annotations by type per project and storage used, from
// GET /usage/summary/{orgId}.
import { useQuery } from '@tanstack/react-query';
import { BarChart3 } from 'lucide-react';
import { teamApi } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { Skeleton, SkeletonGroup } from '../../components/Skeleton';
import { formatBytes } from '../../lib/format';
import { useSession } from '../../stores/session';
import { Card, CardAlert, ListSkeleton } from './parts';
import styles from './SettingsPage.module.css';

const TYPES = [
  ['bbox', 'Boxes'],
  ['polygon', 'Polygons'],
  ['polyline', 'Polylines'],
  ['keypoint', 'Keypoints'],
  ['segmentation', 'Masks'],
] as const;

const n = (v: number) => v.toLocaleString();
const STAT_LABELS = ['Annotations', 'Storage used', 'Images'] as const;
const BY_PROJECT = 'Annotations by type, and the storage of images and thumbnails.';

export function UsageSection() {
  const org = useSession((s) => s.currentOrganization);
  const usage = useQuery({ queryKey: ['usage', org?.id], queryFn: () => teamApi.usageSummary(org!.id), enabled: Boolean(org) });
  if (!org) return <EmptyState icon={<BarChart3 />} tone="neutral" title="No organization" description="Usage is tracked per organization." />;
  const description = `What ${org.name} has used, all time.`;
  if (usage.isPending) {
    // The same two cards as the loaded page, so nothing moves when the numbers arrive.
    return (
      <>
        <Card title="Usage" description={description}>
          <SkeletonGroup className={styles.stats} label="Loading usage">
            {STAT_LABELS.map((label) => (
              <div key={label} className={styles.stat}>
                <Skeleton className={styles.skeletonStat} />
                <span className={styles.statLabel}>{label}</span>
              </div>
            ))}
          </SkeletonGroup>
        </Card>
        <Card title="By project" description={BY_PROJECT}>
          <ListSkeleton rows={2} label="Loading usage by project" />
        </Card>
      </>
    );
  }
  if (usage.isError) {
    return (
      <Card title="Usage" description={description}>
        <CardAlert error={usage.error} fallback="Failed to load usage." onRetry={() => void usage.refetch()} />
      </Card>
    );
  }
  const u = usage.data;
  const storageBy = new Map(u.storage.by_project.map((p) => [p.project_id, p]));
  const rows = u.storage.by_project.map((p) => ({ id: p.project_id, name: p.project_name, annotations: u.annotations.by_project.find((a) => a.project_id === p.project_id), storage: p }));
  for (const a of u.annotations.by_project) if (!a.project_id || !storageBy.has(a.project_id)) rows.push({ id: a.project_id ?? 'deleted', name: a.project_name ?? 'Deleted projects', annotations: a, storage: undefined as never });
  return (
    <>
      <Card title="Usage" description={description}>
        <div className={styles.stats}>
          <div className={styles.stat}>
            <span className={styles.statValue}>{n(u.annotations.total)}</span>
            <span className={styles.statLabel}>Annotations</span>
          </div>
          <div className={styles.stat}>
            <span className={styles.statValue}>{formatBytes(u.storage.total_bytes)}</span>
            <span className={styles.statLabel}>Storage used</span>
          </div>
          <div className={styles.stat}>
            <span className={styles.statValue}>{n(u.storage.image_count)}</span>
            <span className={styles.statLabel}>Images</span>
          </div>
        </div>
      </Card>
      <Card title="By project" description={BY_PROJECT}>
        {rows.length === 0 ? (
          <EmptyState bordered={false} tone="neutral" icon={<BarChart3 />} title="No usage yet" description="Create a project, upload images and annotate: usage shows here." />
        ) : (
          <table className={`${styles.table} ${styles.usageTable}`}>
            <thead>
              <tr>
                <th scope="col">Project</th>
                {TYPES.map(([, label]) => (
                  <th key={label} scope="col">
                    {label}
                  </th>
                ))}
                <th scope="col">Storage</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td>{r.name}</td>
                  {TYPES.map(([type]) => (
                    <td key={type}>{n(r.annotations?.by_type[type] ?? 0)}</td>
                  ))}
                  <td>{r.storage ? formatBytes(r.storage.images_bytes + r.storage.thumbnails_bytes) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </>
  );
}
