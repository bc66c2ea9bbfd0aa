// Placeholder tiles while a grid of images loads, as tall as the tiles that replace them (rows
// below do not jump). The Data and Archive tabs show them.
import { Skeleton } from '../../../components/Skeleton';
import styles from './DataTab.module.css';

export function TileSkeletons({ count, label }: { count: number; label: string }) {
  return (
    <div className={styles.skeletonGrid} role="status" aria-busy="true" aria-label={label}>
      {Array.from({ length: count }, (_, i) => (
        <div key={i} className={styles.skeletonTile}>
          <Skeleton className={styles.skeletonThumb} />
          <Skeleton className={styles.skeletonLine} />
          <Skeleton className={styles.skeletonLineShort} />
        </div>
      ))}
    </div>
  );
}
