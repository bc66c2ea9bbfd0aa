// One layer of the merge view (issue 36 §3): the image with one annotator's shapes (or the merged
// preview) drawn over it as SVG in class colours, each shape numbered by its group, under a heading
// with the annotator's name and when they submitted. A named region, so a screen reader can move
// from layer to layer.
import type { StoredAnnotation } from '../../../contract/annotations';
import { ShapeMark } from '../../components/ShapeMarks';
import styles from './MergePage.module.css';

const NEUTRAL = '#98A2B3';

export interface PanelShape {
  shape: StoredAnnotation;
  /** The group's number as the choices list shows it (1-based). */
  number: number;
  active: boolean;
}

export function LayerPanel({
  title,
  detail,
  label,
  shapes,
  imageUrl,
  width,
  height,
  colors,
  testId,
  tone = 'layer',
}: {
  title: string;
  detail: string;
  /** The region's accessible name. */
  label: string;
  shapes: readonly PanelShape[];
  imageUrl: string | null;
  width: number;
  height: number;
  colors: ReadonlyMap<string, string>;
  testId: string;
  tone?: 'layer' | 'result' | 'pending';
}) {
  const fontSize = Math.max(12, Math.round(Math.max(width, height) / 28));
  return (
    <section className={styles.panel} data-tone={tone} role="region" aria-label={label} data-testid={testId}>
      <header className={styles.panelHeader}>
        <span className={styles.panelTitle}>{title}</span>
        <span className={`${styles.panelDetail} tabular`}>{detail}</span>
      </header>
      <div className={styles.canvas} style={{ aspectRatio: `${width} / ${height}` }}>
        {imageUrl ? <img className={styles.image} src={imageUrl} alt="" draggable={false} /> : <span className={styles.imageMissing} aria-hidden="true" />}
        <svg className={styles.overlay} viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" aria-hidden="true">
          {shapes.map(({ shape, number, active }) => {
            const color = colors.get(shape.name) ?? NEUTRAL;
            const b = shape.bounding_box;
            return (
              <g key={`${number}:${shape.id}`} data-testid="merge-shape" opacity={shapes.some((s) => s.active) && !active ? 0.45 : 1}>
                <ShapeMark a={shape} color={color} emphasis={active} />
                <text x={b.x + fontSize * 0.2} y={b.y + fontSize} fontSize={fontSize} className={styles.shapeNumber} stroke="#101828" strokeWidth={fontSize / 6} paintOrder="stroke" fill="#FFFFFF">
                  {number}
                </text>
              </g>
            );
          })}
        </svg>
      </div>
    </section>
  );
}
