// Placeholder tiles while a grid of images loads, as tall as the tiles that replace them (rows
// below do not jump). The Data and Archive tabs show them.
import { Skeleton, SkeletonGroup } from '../../../components/Skeleton';
import styles from './DataTab.module.css';

export function TileSkeletons({ count, label }: { count: number; label: string }) {
  return (
    <SkeletonGroup className={styles.skeletonGrid} label={label}>
      {Array.from({ length: count }, (_, i) => (
        <div key={i} className={styles.skeletonTile}>
          <Skeleton className={styles.skeletonThumb} />
          <Skeleton className={styles.skeletonLine} />
          <Skeleton className={styles.skeletonLineShort} />
        </div>
      ))}
    </SkeletonGroup>
  );
}
