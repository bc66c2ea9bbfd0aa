import { Calendar, ImageIcon, Images, Settings2 } from 'lucide-react';
import { useState } from 'react';
import type { Project } from '../../../contract/projects';
import { IconButton } from '../../components/Button';
import { toolsLabel } from '../../components/classes/classes';
import { formatCount, formatRelativeDate, progressTone } from '../../lib/format';
import styles from './ProjectCard.module.css';

const MAX_THUMBS = 3;
const MAX_CHIPS = 2;

export function ProjectCard({ project, onOpen, onSettings }: { project: Project; onOpen(): void; onSettings?: () => void }) {
  const total = project.image_count;
  const done = Math.min(project.completed_image_count, total);
  // Rounded down, so a project shows 100% (and green) only once every image is complete.
  const percent = total > 0 ? Math.floor((done / total) * 100) : 0;
  const tone = progressTone(percent);
  const chips = project.classes.slice(0, MAX_CHIPS);
  const moreChips = project.classes.length - chips.length;
  const date = project.updated_at || project.created_at;

  return (
    <article className={styles.card} aria-label={project.name}>
      <button type="button" className={styles.hit} onClick={onOpen} aria-label={`Open project ${project.name}`} data-focus-key={project.id} />
      <Preview project={project} />
      {onSettings ? (
        <IconButton className={styles.settings} variant="secondary" label="Project settings" icon={<Settings2 />} onClick={onSettings} />
      ) : null}
      <div className={styles.body}>
        <div className={styles.titleRow}>
          <h2 className={styles.name} title={project.name}>
            {project.name}
          </h2>
        </div>
        <div className={styles.chips}>
          {chips.length === 0 ? (
            <span className={styles.noClasses}>No classes yet</span>
          ) : (
            chips.map((c) => (
              <span key={c.name} className={styles.chip} title={`${c.name} (${toolsLabel(c)})`}>
                <span className={styles.dot} style={{ background: c.color }} aria-hidden="true" />
                <span className={styles.chipText}>{c.name}</span>
              </span>
            ))
          )}
          {moreChips > 0 ? (
            <span className={styles.chipMore} aria-label={`${moreChips} more classes`}>
              +{moreChips}
            </span>
          ) : null}
        </div>
        <div className={styles.progress}>
          <div
            className={styles.track}
            role="progressbar"
            aria-label="Images complete"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
            aria-valuetext={`${done} of ${total} images complete`}
          >
            <div className={styles.fill} data-tone={tone} style={{ width: `${percent}%` }} />
          </div>
          <span className={`${styles.percent} tabular`}>{percent}%</span>
        </div>
        <div className={styles.footer}>
          <span className={`${styles.meta} tabular`}>
            <Images aria-hidden="true" />
            {formatCount(total, 'image')}
            {total > 0 ? <span className={styles.sub}>· {done.toLocaleString()} complete</span> : null}
          </span>
          <span className={styles.meta}>
            <Calendar aria-hidden="true" />
            <span className="visually-hidden">Updated </span>
            {formatRelativeDate(date)}
          </span>
        </div>
      </div>
    </article>
  );
}

function Preview({ project }: { project: Project }) {
  const thumbs = project.preview_images.filter((p) => p.thumbnail_url).slice(0, MAX_THUMBS);
  const extra = Math.max(0, project.image_count - thumbs.length);
  if (thumbs.length === 0) {
    return (
      <div className={styles.preview} aria-hidden="true">
        <div className={styles.placeholder}>
          <span className={styles.placeholderTile} />
          <span className={styles.placeholderTile} />
          <span className={styles.placeholderTile}>
            <ImageIcon />
          </span>
        </div>
        {project.image_count === 0 ? <span className={styles.placeholderText}>No images yet</span> : null}
      </div>
    );
  }
  return (
    <div className={styles.preview}>
      <div className={styles.stack}>
        {thumbs.map((t, i) => (
          <Thumb key={t.id} src={t.thumbnail_url!} alt={t.filename} index={i} />
        ))}
        {extra > 0 ? <span className={`${styles.more} tabular`}>+{extra.toLocaleString()}</span> : null}
      </div>
    </div>
  );
}

function Thumb({ src, alt, index }: { src: string; alt: string; index: number }) {
  const [failed, setFailed] = useState(false);
  return (
    <span className={styles.thumb} data-index={index}>
      {failed ? <ImageIcon aria-label={alt} /> : <img src={src} alt={alt} loading="lazy" decoding="async" onError={() => setFailed(true)} />}
    </span>
  );
}
