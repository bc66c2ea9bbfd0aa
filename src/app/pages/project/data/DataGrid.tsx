// The Data tab's body: skeleton tiles while the folder loads, an error with Try again when it
// failed, else the virtualised grid of tiles with 'Loading more…' under it, and the empty states
// (no name matches the search; nothing with this status; no images yet, or an empty folder).
import { useRef, type ReactNode } from 'react';
import { Plus, RefreshCw, SearchX, UploadCloud } from 'lucide-react';
import type { ImageStatus } from '../../../../contract/images';
import { ROOT_PATH } from '../../../../contract/folders';
import { Button } from '../../../components/Button';
import { EmptyState } from '../../../components/EmptyState';
import { statusLabel } from '../../../lib/stages';
import { useDataView } from '../../../stores/dataView';
import { folderName } from './folders';
import { ACCEPT_ATTR } from './uploads';
import { TileSkeletons } from './TileSkeletons';
import type { Item } from './useGridItems';
import type { ImageList } from './useImageList';
import { VirtualGrid } from './VirtualGrid';
import styles from './DataTab.module.css';

export function DataGrid({
  list,
  items,
  folderPath,
  status,
  search,
  hasFolders,
  uploadDenied,
  onUpload,
  onRange,
  renderItem,
}: {
  list: ImageList;
  items: Item[];
  folderPath: string;
  status: ImageStatus | null;
  search: string;
  hasFolders: boolean;
  uploadDenied: string | null;
  /** Uploads files chosen from the empty state's button to the folder shown (as Add and a drop do). */
  onUpload(files: File[]): void;
  onRange(start: number, end: number): void;
  renderItem(item: Item): ReactNode;
}) {
  const view = useDataView.getState;
  if (list.loading && !list.images.length) return <TileSkeletons count={10} label="Loading images" />;
  if (list.error && !list.images.length) {
    return (
      <EmptyState
        icon={<RefreshCw />}
        tone="danger"
        role="alert"
        title="Failed to load folder contents"
        description="Please try again."
        action={
          <Button variant="secondary" icon={<RefreshCw />} onClick={list.reload}>
            Try again
          </Button>
        }
      />
    );
  }
  return (
    <>
      <VirtualGrid
        items={items}
        label={search ? `Images matching ${search}` : `Contents of ${folderName(folderPath)}`}
        itemKey={(it) => (it.kind === 'parent' ? 'parent' : it.kind === 'folder' ? `f:${it.folder.id}` : it.image.id)}
        onNearEnd={list.hasNext ? list.loadMore : undefined}
        onRange={onRange}
        renderItem={renderItem}
      />
      {list.loadingMore ? (
        <p className={styles.loadingMore} aria-live="polite">
          Loading more…
        </p>
      ) : null}
      {!list.loading && !list.images.length && (search || !hasFolders) ? (
        search ? (
          <EmptyState
            icon={<SearchX />}
            tone="neutral"
            title={`No images match “${search}”`}
            description={`No file name in any folder contains it${status !== null ? ` among the ${statusLabel(status)} images` : ''}. Check the spelling, or try part of the name.`}
            action={
              <Button variant="secondary" onClick={() => view().setSearch('')}>
                Clear search
              </Button>
            }
          />
        ) : status !== null ? (
          <EmptyState
            icon={<SearchX />}
            tone="neutral"
            title={`No images in the ${statusLabel(status)} stage here`}
            description="Try another status, or show all statuses."
            action={
              <Button variant="secondary" onClick={() => view().setStatus(null)}>
                Show all statuses
              </Button>
            }
          />
        ) : (
          <EmptyState
            icon={<UploadCloud />}
            title={folderPath === ROOT_PATH ? (uploadDenied ? 'No images yet' : 'Add your first images') : 'This folder is empty'}
            description={
              uploadDenied ? `${uploadDenied}; they appear here once a teammate adds them.` : 'Drop image files here, or choose them. JPEG, PNG, GIF, WebP, BMP and SVG are accepted.'
            }
            action={uploadDenied ? undefined : <ChooseImages onUpload={onUpload} />}
          />
        )
      ) : null}
    </>
  );
}

/** The empty grid's main action (DESIGN.md: an empty state has one): the file picker Add opens. */
function ChooseImages({ onUpload }: { onUpload(files: File[]): void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <Button variant="primary" icon={<Plus />} onClick={() => input.current?.click()}>
        Choose Images
      </Button>
      <input
        ref={input}
        type="file"
        multiple
        accept={ACCEPT_ATTR}
        hidden
        aria-label="Choose images to upload"
        onChange={(e) => {
          onUpload(Array.from(e.target.files ?? []));
          e.target.value = '';
        }}
      />
    </>
  );
}
