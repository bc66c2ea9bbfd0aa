// An image's shapes drawn over its tile's thumbnail, in class colours (issue 32 §4), behind the
// class panel's 'Shapes on tiles' toggle (remembered in browser storage). Only mounted tiles load
// (the grid is virtualised), each with one load-data call kept in the query cache by the image's
// update time; an image with more than MAX_TILE_SHAPES shapes is not drawn (a tile cannot show
// them and the load would be large): its count pill says how many there are.
import { useQuery } from '@tanstack/react-query';
import type { Image } from '../../../../contract/images';
import { editorApi } from '../../../api/annotations/editorApi';
import { readStorage, writeStorage } from '../../../lib/storage';
import { ShapeMark } from '../../../components/ShapeMarks';
import styles from './DataTab.module.css';

export const MAX_TILE_SHAPES = 500;
const STORAGE_KEY = 'vellum.tileShapes';
const NEUTRAL = '#98A2B3';

export const readTileShapesChoice = (): boolean => readStorage<boolean>(STORAGE_KEY, false) === true;
export const writeTileShapesChoice = (on: boolean) => writeStorage(STORAGE_KEY, on);

export function TileShapes({ image, projectId, colors }: { image: Image; projectId: string; colors: ReadonlyMap<string, string> }) {
  const drawable = image.annotation_count > 0 && image.annotation_count <= MAX_TILE_SHAPES && !!image.image_width && !!image.image_height;
  const shapes = useQuery({
    queryKey: ['tile-shapes', projectId, image.id, image.updated_at, image.annotation_count],
    queryFn: async () => (await editorApi.loadData(image.id, projectId)).annotations,
    enabled: drawable,
    staleTime: 60_000,
  });
  if (!drawable || !shapes.data) return null;
  return (
    <svg
      className={styles.tileShapes}
      viewBox={`0 0 ${image.image_width} ${image.image_height}`}
      // The thumbnail covers its box (object-fit: cover): the shapes are cut the same way.
      preserveAspectRatio="xMidYMid slice"
      aria-hidden="true"
      data-testid="tile-shapes"
    >
      {shapes.data.map((a) => (
        <ShapeMark key={a.id} a={a} color={colors.get(a.name) ?? NEUTRAL} />
      ))}
    </svg>
  );
}
