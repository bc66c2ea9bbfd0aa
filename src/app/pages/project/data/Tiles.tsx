// Tiles of the dataset grid: images, folders and the 'Back to parent' drop tile.
import { useId, useRef, useState, type DragEvent, type MouseEvent, type ReactNode } from 'react';
import { Check, CornerLeftUp, Folder, GitMerge, ImageOff, Pencil, ScanSearch, Shapes, Sparkles, UserCheck } from 'lucide-react';
import { useNavigate } from 'react-router-dom';
import { nextStatus, type Image } from '../../../../contract/images';
import { ROOT_PATH, type FolderNode } from '../../../../contract/folders';
import { IconButton } from '../../../components/Button';
import { Tooltip } from '../../../components/Tooltip';
import { formatBytes, formatCount, formatRelativeDate } from '../../../lib/format';
import { mergePath } from '../../../lib/links';
import { statusLabel } from '../../../lib/stages';
import { thumbKey, useThumbnails } from './thumbnails';
import { TileWork } from './tilePeople';

/** A model's predictions waiting for review on the image (issue 34): a badge on the thumbnail. */
function PendingBadge({ count }: { count: number | undefined }) {
  if (!count) return null;
  const what = formatCount(count, 'pending prediction');
  return (
    <span className={styles.pendingBadge} title={what} aria-label={what} data-testid="tile-predictions">
      <ScanSearch aria-hidden="true" />
      {count.toLocaleString()}
    </span>
  );
}
import { openAssign } from './AssignDialog';
import { useCan } from '../../../stores/permissions';
import styles from './DataTab.module.css';

export const DRAG_IMAGES = 'application/x-vellum-images';
export const DRAG_FOLDER = 'application/x-vellum-folder';

export interface DropPayload {
  imageIds: string[];
  folderId: string | null;
}

export function readDrop(e: DragEvent): DropPayload | null {
  const images = e.dataTransfer.getData(DRAG_IMAGES);
  const folder = e.dataTransfer.getData(DRAG_FOLDER);
  if (images) {
    try {
      return { imageIds: JSON.parse(images) as string[], folderId: null };
    } catch {
      return null;
    }
  }
  return folder ? { imageIds: [], folderId: folder } : null;
}

const isInternalDrag = (e: DragEvent) => e.dataTransfer.types.includes(DRAG_IMAGES) || e.dataTransfer.types.includes(DRAG_FOLDER);

/** Drop-target behaviour shared by folder tiles and the parent tile. */
function useDropTarget(onDrop: ((payload: DropPayload) => void) | undefined, selfId?: string) {
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  if (!onDrop) return { over: false, handlers: {} };
  return {
    over,
    handlers: {
      onDragEnter: (e: DragEvent) => {
        if (!isInternalDrag(e)) return;
        e.preventDefault();
        depth.current += 1;
        setOver(true);
      },
      onDragOver: (e: DragEvent) => {
        if (!isInternalDrag(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
      },
      onDragLeave: () => {
        depth.current = Math.max(0, depth.current - 1);
        if (!depth.current) setOver(false);
      },
      onDrop: (e: DragEvent) => {
        if (!isInternalDrag(e)) return;
        e.preventDefault();
        e.stopPropagation();
        depth.current = 0;
        setOver(false);
        const payload = readDrop(e);
        if (payload && payload.folderId !== selfId) onDrop(payload);
      },
    },
  };
}

export function StatusBadge({ status }: { status: Image['status'] }) {
  return (
    <span className={styles.status} data-status={status}>
      <span className={styles.statusDot} aria-hidden="true" />
      {statusLabel(status)}
    </span>
  );
}

/**
 * The tile's status pill. With `onCycle` it is a button that moves the image one step along
 * new -> annotating -> complete -> new (spec section 4); without (no permission, Archive) it only shows.
 */
function StatusPill({ image, onCycle }: { image: Image; onCycle?: () => void }) {
  if (!onCycle) {
    return (
      <span className={styles.statusPill}>
        <StatusBadge status={image.status} />
      </span>
    );
  }
  const next = statusLabel(nextStatus(image.status));
  return (
    <Tooltip content={`Change to ${next}`}>
      <button
        type="button"
        className={`${styles.statusPill} ${styles.statusButton}`}
        aria-label={`Status of ${image.filename}: ${statusLabel(image.status)}. Change to ${next}`}
        data-testid="status-cycle"
        onClick={onCycle}
      >
        <StatusBadge status={image.status} />
      </button>
    </Tooltip>
  );
}

function Thumb({ image }: { image: Image }) {
  const key = thumbKey(image);
  const url = useThumbnails((s) => s.entries[key]?.url);
  const failed = useThumbnails((s) => Boolean(s.failed[key]));
  const [loadedUrl, setLoadedUrl] = useState<string | null>(null);
  const [broken, setBroken] = useState(false);
  if (failed || broken) {
    return (
      <span className={styles.thumbFallback}>
        <ImageOff aria-hidden="true" />
      </span>
    );
  }
  return (
    <>
      {loadedUrl !== url ? <span className={styles.thumbSkeleton} aria-hidden="true" /> : null}
      {url ? (
        <img
          className={styles.thumbImg}
          src={url}
          alt={image.filename}
          draggable={false}
          loading="lazy"
          decoding="async"
          data-loaded={loadedUrl === url || undefined}
          onLoad={() => setLoadedUrl(url)}
          onError={() => setBroken(true)}
        />
      ) : null}
    </>
  );
}

export interface ImageTileProps {
  image: Image;
  selected: boolean;
  selecting: boolean;
  draggableIds?(): string[];
  /** Absent (with onToggle): the tile only shows the image (nothing the role may do with it here). */
  onActivate?(e: MouseEvent | null): void;
  /** Absent: no selection checkbox. */
  onToggle?(e: MouseEvent): void;
  /** Given: the status pill is a button that cycles the image's status. */
  onCycleStatus?(): void;
  /** Show the image's folder instead of its date (search results come from every folder). */
  showFolder?: boolean;
  /** Who has the image open in the editor (live co-editing), over the thumbnail's top-right corner. */
  people?: ReactNode;
  /** Drawn over the thumbnail: the image's shapes when the class panel's toggle is on (TileShapes). */
  overlay?: ReactNode;
}

/** '4000 × 3000', or null when the size is not known. */
export function pixelSize(image: Pick<Image, 'image_width' | 'image_height'>): string | null {
  return image.image_width && image.image_height ? `${image.image_width.toLocaleString()} × ${image.image_height.toLocaleString()}` : null;
}

/** The annotation count over the thumbnail's bottom-right corner: a shapes icon and the number. */
function AnnotationCount({ count, id }: { count: number; id: string }) {
  const label = formatCount(count, 'annotation');
  return (
    <span className={styles.countPill} id={id} data-empty={count === 0 || undefined} title={label} data-testid="annotation-count">
      <Shapes aria-hidden="true" />
      <span className="tabular">{count.toLocaleString()}</span>
      <span className="visually-hidden">{` ${count === 1 ? 'annotation' : 'annotations'}`}</span>
    </span>
  );
}

/** Merge drafts... (issue 36 §3): on an overlapped image its annotators have started, for the roles that review; shown on hover and focus. */
function MergeAction({ image }: { image: Pick<Image, 'id' | 'project_id' | 'filename' | 'overlap' | 'status' | 'is_archived'> }) {
  const canReview = useCan('images.review');
  const navigate = useNavigate();
  if (!canReview || image.overlap <= 1 || image.status === 'new' || image.is_archived) return null;
  return (
    <span className={styles.tileAction}>
      <IconButton label={`Merge drafts of ${image.filename}`} icon={<GitMerge />} onClick={() => void navigate(mergePath(image.project_id, image.id))} />
    </span>
  );
}

// Long because one tile draws every state of an image (thumbnail, counts, stage, people, folder,
// selection, drag) and its pointer and keyboard handling share them.
export function ImageTile({ image, selected, selecting, draggableIds, onActivate, onToggle, onCycleStatus, showFolder = false, people, overlay }: ImageTileProps) {
  const [dragging, setDragging] = useState(false);
  const detailsId = useId();
  const pixels = pixelSize(image);
  const folder = image.virtual_folder_path === ROOT_PATH ? 'All images' : image.virtual_folder_path.slice(image.virtual_folder_path.lastIndexOf('/') + 1);
  // The thumbnail and the name: inside a button when the tile does something, else plain. The
  // button's visible text is its name, the file name (WCAG 2.5.3, issue 37): the counts, people,
  // size and date are laid over the tile beside it, and the details describe it.
  const content = (
    <>
      <span className={styles.thumb}>
        <Thumb image={image} />
        {overlay}
        {image.is_edited ? (
          <span className={styles.edited} title="Edited image">
            <Sparkles aria-label="Edited image" />
          </span>
        ) : null}
      </span>
      <span className={styles.info}>
        <span className={styles.filenameRow}>
          <span className={styles.filename} title={image.filename}>
            {image.filename}
          </span>
        </span>
      </span>
    </>
  );
  const beside = (
    <>
      <PendingBadge count={image.pending_predictions} />
      <span className={styles.workBeside}>
        <TileWork image={image} />
      </span>
      <span className={`${styles.details} ${styles.detailsBeside} ${styles.dim} tabular`} id={detailsId}>
        <span className={styles.detailsStart}>
          {pixels ? (
            <span data-testid="pixel-size" title={`${pixels} pixels`}>
              {pixels}
            </span>
          ) : null}
          {pixels ? <span className={styles.dot} aria-hidden="true" /> : null}
          <span>{formatBytes(image.file_size)}</span>
        </span>
        {showFolder ? (
          <span className={styles.detailsFolder} title={image.virtual_folder_path}>
            <Folder aria-hidden="true" />
            <span className={styles.detailsFolderName}>{folder}</span>
          </span>
        ) : (
          <span className={styles.detailsDate} title={new Date(image.created_at).toLocaleString()}>{formatRelativeDate(image.created_at)}</span>
        )}
      </span>
    </>
  );
  return (
    <div
      className={styles.tile}
      data-selected={selected || undefined}
      data-selecting={selecting || undefined}
      data-dragging={dragging || undefined}
      data-testid="image-tile"
      data-work={image.assignee_id || image.open_issues || image.overlap > 1 || undefined}
      draggable={Boolean(draggableIds)}
      onDragStart={(e) => {
        if (!draggableIds) return;
        const ids = draggableIds();
        e.dataTransfer.setData(DRAG_IMAGES, JSON.stringify(ids));
        e.dataTransfer.setData('text/plain', ids.length === 1 ? image.filename : `${ids.length} images`);
        e.dataTransfer.effectAllowed = 'move';
        setDragging(true);
      }}
      onDragEnd={() => setDragging(false)}
    >
      {onActivate ? (
        <button
          type="button"
          className={styles.tileMain}
          aria-label={image.filename}
          aria-describedby={`${detailsId} ${detailsId}-count`}
          data-focus-key={image.id}
          aria-pressed={selecting ? selected : undefined}
          onClick={(e) => onActivate(e)}
        >
          {content}
        </button>
      ) : (
        <div className={styles.tileMain} data-static="true">
          {content}
        </div>
      )}
      {onToggle ? (
        <button
          type="button"
          role="checkbox"
          aria-checked={selected}
          aria-label={`Select ${image.filename}`}
          className={styles.check}
          onClick={(e) => onToggle(e)}
        >
          {selected ? <Check aria-hidden="true" /> : null}
        </button>
      ) : null}
      {/* Beside the main button, not inside it: a button cannot hold another. */}
      {beside}
      <StatusPill image={image} onCycle={onCycleStatus} />
      <AnnotationCount count={image.annotation_count} id={`${detailsId}-count`} />
      <MergeAction image={image} />
      {/* Over the thumbnail, left of the edited badge: it takes no room, so nothing moves when someone arrives. */}
      {people ? (
        <div className={styles.people} data-edited={image.is_edited || undefined}>
          {people}
        </div>
      ) : null}
    </div>
  );
}

export function FolderTile({
  folder,
  renaming,
  onOpen,
  onRenameStart,
  onRename,
  onDrop,
}: {
  folder: FolderNode;
  renaming: boolean;
  onOpen(): void;
  /** Absent: no rename action (the role may not organize). */
  onRenameStart?(): void;
  onRename(name: string | null): void;
  /** Absent: the folder is neither dragged nor a drop target (the role may not move things). */
  onDrop?(payload: DropPayload): void;
}) {
  const { over, handlers } = useDropTarget(onDrop, folder.id);
  const [dragging, setDragging] = useState(false);
  // Assign... for the folder's images (issue 29): the roles that assign.
  const canAssign = useCan('images.assign') && folder.image_count > 0;
  return (
    <div
      className={`${styles.tile} ${styles.folderTile}`}
      data-over={over || undefined}
      data-dragging={dragging || undefined}
      data-testid="folder-tile"
      draggable={Boolean(onDrop) && !renaming}
      onDragStart={(e) => {
        if (!onDrop) return;
        e.dataTransfer.setData(DRAG_FOLDER, folder.id);
        e.dataTransfer.setData('text/plain', folder.name);
        e.dataTransfer.effectAllowed = 'move';
        setDragging(true);
      }}
      onDragEnd={() => setDragging(false)}
      {...handlers}
    >
      <button type="button" className={styles.tileMain} aria-label={`Open folder ${folder.name}`} onClick={onOpen} onDoubleClick={(e) => e.preventDefault()}>
        <span className={`${styles.thumb} ${styles.folderThumb}`}>
          <Folder aria-hidden="true" />
        </span>
        <span className={styles.info}>
          {renaming ? <span className={styles.filename}>&nbsp;</span> : <span className={styles.filename}>{folder.name}</span>}
          <span className={`${styles.details} ${styles.dim} tabular`}>{formatCount(folder.total_image_count, 'image')}</span>
        </span>
      </button>
      {renaming ? <FolderNameInput initial={folder.name} onDone={onRename} /> : null}
      {!renaming && (onRenameStart || canAssign) ? (
        <span className={styles.tileAction}>
          {canAssign ? <IconButton label={`Assign folder ${folder.name}…`} icon={<UserCheck />} onClick={() => openAssign({ kind: 'folder', path: folder.full_path, name: folder.name, count: folder.image_count })} /> : null}
          {onRenameStart ? <IconButton label={`Rename folder ${folder.name}`} icon={<Pencil />} onClick={onRenameStart} /> : null}
        </span>
      ) : null}
    </div>
  );
}

function FolderNameInput({ initial, onDone }: { initial: string; onDone(name: string | null): void }) {
  const [value, setValue] = useState(initial);
  const done = useRef(false);
  const finish = (name: string | null) => {
    if (done.current) return;
    done.current = true;
    const trimmed = name?.trim() ?? '';
    onDone(trimmed && trimmed !== initial ? trimmed : null);
  };
  return (
    <input
      className={styles.folderInput}
      aria-label={`Folder name for ${initial}`}
      value={value}
      maxLength={100}
      autoFocus
      onFocus={(e) => e.currentTarget.select()}
      onChange={(e) => setValue(e.target.value)}
      onBlur={() => finish(value)}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Enter') {
          e.preventDefault();
          finish(value);
        } else if (e.key === 'Escape') {
          e.preventDefault();
          finish(null);
        }
      }}
    />
  );
}

/** `onDrop` absent: only a way back (the role may not move images and folders). */
export function ParentTile({ onOpen, onDrop, label }: { onOpen(): void; onDrop?(payload: DropPayload): void; label: ReactNode }) {
  const { over, handlers } = useDropTarget(onDrop);
  return (
    <div className={`${styles.tile} ${styles.parentTile}`} data-over={over || undefined} data-testid="parent-tile" {...handlers}>
      <Tooltip content={onDrop ? 'Open the parent folder, or drop images and folders here to move them up' : 'Open the parent folder'}>
        <button type="button" className={styles.tileMain} aria-label="Back to parent" onClick={onOpen}>
          <span className={`${styles.thumb} ${styles.parentThumb}`}>
            <CornerLeftUp aria-hidden="true" />
          </span>
          <span className={styles.info}>
            <span className={styles.filename}>Back to parent</span>
            <span className={`${styles.details} ${styles.dim}`}>{label}</span>
          </span>
        </button>
      </Tooltip>
    </div>
  );
}
