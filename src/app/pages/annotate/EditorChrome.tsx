// Pieces of the editor screen's layout (./EditorScreen.tsx): the top bar with Copy link and the
// image's stage picker (below 768 px one compact row: Copy link, the project, the image's place and
// the people here move into its More menu), the notice of work restored from this device, the stage's loading and
// error overlay, a version's canvas and its notice, the zoom controls and the dialog shown when a
// drawing tool has no class to use and the role may not add one.
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { ArrowLeft, Check, ChevronDown, ChevronLeft, ChevronRight, Ellipsis, History, Link2, Maximize, TriangleAlert, ZoomIn, ZoomOut } from 'lucide-react';
import type { ReactNode } from 'react';
import type { Image, ImageStatus } from '../../../contract/images';
import { shortcutKeyLabel } from '../../../contract/preferences';
import type { Editor } from '../../../engine';
import { Button, IconButton } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Spinner } from '../../components/Spinner';
import { StageEntry } from '../../components/StageEntry';
import { Tooltip } from '../../components/Tooltip';
import { NARROW_SCREEN, useMediaQuery } from '../../lib/useMediaQuery';
import { STAGE_OPTIONS, stageLabel, stageOption } from '../../lib/stages';
import { toast } from '../../stores/toast';
import type { ImageSourceInput } from '../../../workers/render-client';
import { EditorCanvas } from './EditorCanvas';
import type { ImageStage } from './hooks/useImageStage';
import type { LoadState, ProgressStore } from '../../editor-session/imageLoading';
import { LoadingProgress } from './LoadingProgress';
import type { SaveStatus } from '../../sync/save';
import { SaveIndicator, ViewOnlyIndicator } from './SaveIndicator';
import { useShortcuts } from './hooks/useShortcuts';
import { useCamera } from './useEditor';
import styles from './AnnotatePage.module.css';

export interface TopBarProps {
  image: Image;
  projectName: string;
  /** The image's place in the sequence (-1: not in it) and the sequence's length (undefined while loading). */
  index: number;
  count: number | undefined;
  hasPrevious: boolean;
  hasNext: boolean;
  onBack(): void;
  goPrevious(): void;
  goNext(): void;
  /** Why this role may not edit; the save status is shown when null. */
  viewOnlyReason: string | null;
  saveStatus: SaveStatus;
  /** The image's stage and its picker (Shift+S opens it). */
  stage?: ImageStage;
  /** The people on the image (live co-editing), shown unless turned off in the settings. */
  peers?: ReactNode;
  /** The review loop's actions (issue 29: Issues, Submit for review, Accept, Reject...). */
  workflow?: ReactNode;
}

export function EditorTopBar({ image, projectName, index, count, hasPrevious, hasNext, onBack, goPrevious, goNext, viewOnlyReason, saveStatus, stage, peers, workflow }: TopBarProps) {
  // Below 768 px (issue 37, reflow at 320 px) one row of one height: icons for Back and the
  // review actions, and the less used parts in a More menu, so the canvas keeps its height.
  const compact = useMediaQuery(NARROW_SCREEN);
  const keys = useShortcuts((s) => (s.shortcuts.enabled ? s.shortcuts.action_keys : null));
  const keyHint = (id: 'previous_image' | 'next_image') => (keys ? ` (${shortcutKeyLabel(keys[id])})` : '');
  const position = count !== undefined && index >= 0 ? `${(index + 1).toLocaleString()} of ${count.toLocaleString()}` : null;
  return (
    <header className={styles.bar} data-compact={compact || undefined}>
      {compact ? (
        <IconButton label="Back" icon={<ArrowLeft />} tooltipSide="bottom" onClick={onBack} />
      ) : (
        <>
          <Button variant="ghost" size="sm" icon={<ArrowLeft />} onClick={onBack}>
            Back
          </Button>
          <span className={styles.barDivider} aria-hidden="true" />
        </>
      )}
      <IconButton label={`Previous image${keyHint('previous_image')}`} icon={<ChevronLeft />} tooltipSide="bottom" disabled={!hasPrevious} onClick={goPrevious} />
      <IconButton label={`Next image${keyHint('next_image')}`} icon={<ChevronRight />} tooltipSide="bottom" disabled={!hasNext} onClick={goNext} />
      <div className={styles.imageTitle}>
        <h1 className={styles.name} title={image.filename}>
          {image.filename}
        </h1>
        {position && !compact ? <span className={styles.position}>{position}</span> : null}
      </div>
      {stage ? <StagePicker stage={stage} /> : null}
      <div className={styles.barEnd}>
        {workflow}
        {compact ? null : <CopyLinkButton />}
        {compact ? null : peers}
        {viewOnlyReason ? <ViewOnlyIndicator reason={viewOnlyReason} /> : <SaveIndicator status={saveStatus} />}
        {compact ? <MoreMenu projectName={projectName} position={position} peers={peers} /> : <span className={styles.projectName}>{projectName}</span>}
      </div>
    </header>
  );
}

/**
 * The compact top bar's More menu (a menu button: Enter, Space or ↓ opens it, the arrows walk it,
 * Escape closes it and gives focus back to the button): the project and the image's place, the
 * people here, and Copy link.
 */
function MoreMenu({ projectName, position, peers }: { projectName: string; position: string | null; peers?: ReactNode }) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        <IconButton label="More" icon={<Ellipsis />} tooltipSide="bottom" data-testid="top-bar-more" />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className={styles.menu} sideOffset={6} align="end" collisionPadding={8} aria-label="More">
          <DropdownMenu.Label className={styles.menuLabel}>
            {projectName}
            {position ? ` · ${position}` : ''}
          </DropdownMenu.Label>
          {peers ? <div className={styles.menuPeers}>{peers}</div> : null}
          <DropdownMenu.Separator className={styles.menuSeparator} />
          <DropdownMenu.Item className={styles.menuItem} onSelect={copyLink}>
            <Link2 aria-hidden="true" />
            <span className={styles.menuItemText}>Copy link</span>
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/**
 * Copies this editor's URL (issue 29: the project, the image and the Data view it was opened from,
 * so a teammate's previous / next follow the same view) and says so in a toast.
 */
function copyLink() {
  navigator.clipboard.writeText(window.location.href).then(
    () => toast('Link copied to the clipboard', 'success'),
    () => toast("Couldn't copy the link. Copy it from the address bar.", 'danger'),
  );
}

export function CopyLinkButton() {
  return <IconButton label="Copy link" icon={<Link2 />} tooltipSide="bottom" onClick={copyLink} data-testid="copy-link" />;
}

/**
 * The image's stage in the top bar: a menu of the stages (Shift+S opens it) that sets the image's
 * status at once. A role that may not set stages sees the stage, with the reason as its tooltip.
 */
export function StagePicker({ stage }: { stage: ImageStage }) {
  const { deniedReason } = stage;
  const stageKey = useShortcuts((s) => (s.shortcuts.enabled ? shortcutKeyLabel(s.shortcuts.action_keys.stage) : null));
  const current = stageOption(stage.status);
  const name = `Stage: ${stageLabel(stage.status)}`;
  const trigger = (
    <button
      type="button"
      className={styles.stageTrigger}
      aria-label={deniedReason ? name : `${name}. Change stage`}
      aria-keyshortcuts={stageKey ?? undefined}
      aria-disabled={deniedReason ? true : undefined}
      data-busy={stage.busy || undefined}
      data-testid="stage-picker"
    >
      <StageEntry option={current} />
      {deniedReason ? null : <ChevronDown aria-hidden="true" className={styles.stageChevron} />}
    </button>
  );
  if (deniedReason) return <Tooltip content={deniedReason} side="bottom">{trigger}</Tooltip>;
  return (
    // Not modal: a modal menu hides the rest of the page from assistive technology while its
    // controls stay focusable (axe aria-hidden-focus, issue 37).
    <DropdownMenu.Root open={stage.open} onOpenChange={stage.setOpen} modal={false}>
      <DropdownMenu.Trigger asChild>{trigger}</DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className={`${styles.menu} ${styles.stageMenu}`} sideOffset={6} align="start" aria-label="Set stage" collisionPadding={8}>
          <DropdownMenu.Label className={styles.menuLabel}>Set stage</DropdownMenu.Label>
          <DropdownMenu.RadioGroup value={stage.status} onValueChange={(v) => stage.setStage(v as ImageStatus)}>
            {STAGE_OPTIONS.map((o) => (
              <DropdownMenu.RadioItem key={o.status} value={o.status} className={`${styles.menuItem} ${styles.stageItem}`}>
                <StageEntry option={o} />
                <DropdownMenu.ItemIndicator className={styles.stageCheck}>
                  <Check aria-hidden="true" />
                </DropdownMenu.ItemIndicator>
              </DropdownMenu.RadioItem>
            ))}
          </DropdownMenu.RadioGroup>
          <DropdownMenu.Separator className={styles.menuSeparator} />
          {stageKey ? (
            <p className={styles.stageHint} aria-hidden="true">
              {stageKey.split('+').map((k) => (
                <kbd key={k}>{k}</kbd>
              ))}
              <span>opens this menu</span>
            </p>
          ) : null}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

export function RecoveredNotice({ changes, onDiscard, onKeep }: { changes: number; onDiscard(): void; onKeep(): void }) {
  return (
    <div className={styles.recovered} role="status">
      <History aria-hidden="true" />
      <span>
        Restored {changes} unsaved change{changes === 1 ? '' : 's'} kept on this device. They are being saved.
      </span>
      <Button size="sm" variant="ghost" onClick={onDiscard}>
        Discard
      </Button>
      <Button size="sm" variant="ghost" onClick={onKeep}>
        Keep
      </Button>
    </div>
  );
}

/** Over the stage until the image is up: the progress of its load, or why it failed. */
export function StageOverlay({ load, imageId, progress }: { load: LoadState; imageId: string; progress: ProgressStore }) {
  return (
    <div className={styles.stageOverlay}>
      {load.status === 'error' && load.imageId === imageId ? (
        <div className={styles.stageMessage} role="alert">
          <TriangleAlert aria-hidden="true" />
          <p>{load.message}</p>
          {load.retry === false ? null : (
            <Button size="sm" onClick={() => window.location.reload()}>
              Try again
            </Button>
          )}
        </div>
      ) : (
        <div className={styles.stageMessage}>
          <Spinner size="lg" />
          <p>Loading image...</p>
          <LoadingProgress store={progress} imageId={imageId} />
        </div>
      )}
    </div>
  );
}

/** A version of the image drawn by its own read-only editor over the user's (../VersionPreview). */
export function VersionCanvas({ editor, drawn, version, filename, classColor, colorsKey, imageSource, onImageReady }: { editor: Editor; drawn: boolean; version: number | null; filename: string; classColor(name: string): string; colorsKey: string; imageSource: ImageSourceInput | undefined; onImageReady(err: Error | null): void }) {
  return (
    <div className={styles.previewLayer} data-drawn={drawn || undefined}>
      <EditorCanvas editor={editor} classColor={classColor} colorsKey={colorsKey} imageSource={imageSource} onImageReady={onImageReady} cursor="default" label={`Image ${filename}, version ${version}, read only`} testId="version-canvas" />
    </div>
  );
}

/** Above the Annotations list while a version is shown. */
export function VersionNotice({ version }: { version: number | null }) {
  return (
    <p className={styles.listNotice}>
      <History aria-hidden="true" />
      <span>Version {version?.toLocaleString()}, read only</span>
    </p>
  );
}

export function ZoomControls({ editor }: { editor: Editor }) {
  const camera = useCamera(editor);
  return (
    <div className={styles.zoom} role="group" aria-label="Zoom">
      <IconButton label="Zoom out" icon={<ZoomOut />} onClick={() => editor.zoomOut()} />
      <span className={styles.zoomValue}>{Math.round(camera.scale * 100)}%</span>
      <IconButton label="Zoom in" icon={<ZoomIn />} onClick={() => editor.zoomIn()} />
      <IconButton label="Fit to screen" icon={<Maximize />} onClick={() => editor.fitToScreen()} />
    </div>
  );
}

export function NoClassesDialog({ open, onOpenChange, onManageClasses }: { open: boolean; onOpenChange(open: boolean): void; onManageClasses(): void }) {
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="No classes available"
      tone="warning"
      icon={<TriangleAlert />}
      description="You need to create annotation classes before you can start annotating. Would you like to manage your project classes?"
      footer={
        <>
          <Button onClick={() => onOpenChange(false)}>Cancel</Button>
          <Button
            variant="primary"
            onClick={() => {
              onOpenChange(false);
              onManageClasses();
            }}
          >
            Manage Classes
          </Button>
        </>
      }
    />
  );
}
