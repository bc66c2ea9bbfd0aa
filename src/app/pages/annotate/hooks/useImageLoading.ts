// Opening an image in the screen's editor: its pixels and its document, parsed, validated and built
// in slices with a progress bar, while the save manager looks for work this device kept for it
// (loaded instead when there is some, with a notice and a Discard). A viewer's editor never saves.
// Going to another image keeps the screen: its document replaces the previous one in the same
// Editor (the previous one's undo history is kept for the session, see Editor's historyKey), the
// renderer swaps its image, and the previous image stays on the canvas until the next one's first
// frame (no 'Loading image...' unless that takes longer than SLOW_SWITCH_MS).
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { Image } from '../../../../contract/images';
import type { Editor } from '../../../../engine';
import type { ImageSourceInput } from '../../../../workers/render-client';
import { serverMessage } from '../../../api/client';
import { toast } from '../../../stores/toast';
import { parseLoadData } from '../../../api/annotations/editorApi';
import type { AutoAnnotateSession } from '../../../editor-session/autoAnnotate';
import { progressStore } from '../LoadingProgress';
import { loadAnnotations, openImage } from '../../../api/annotations/preload';
import type { EditorSaveLink, SaveManager } from '../../../sync/save';
import type { HistoryOpening } from './useHistoryView';

/** The share of a load's progress bar that parsing the response takes (validating and building: the rest). */
const PARSE_SHARE = 0.2;
/** A switch to another image taking longer than this shows the stage's loading overlay. */
const SLOW_SWITCH_MS = 1200;

export type LoadState = { imageId: string; status: 'loading' } | { imageId: string; status: 'ready' } | { imageId: string; status: 'error'; message: string };

export interface ImageLoadingOptions {
  editor: Editor;
  image: Image;
  orgId: string;
  projectId: string;
  readOnly: boolean;
  auto: AutoAnnotateSession;
  link: EditorSaveLink;
  saver: SaveManager;
  /** The history view's side of an open (./useHistoryView). */
  opening: HistoryOpening;
  /** Bumped by a restore: the image is opened again. */
  reopenToken: number;
  /** Set as the screen renders: this image's document is in the editor. */
  documentReady: RefObject<boolean>;
}

// Long because opening an image is one ordered procedure (pixels, parse, build, recovery, attach,
// camera) whose cancellation must see every step; the next move is into the editor session.
export function useImageLoading({ editor, image, orgId, projectId, readOnly, auto, link, saver, opening, reopenToken, documentReady }: ImageLoadingOptions) {
  const progress = useMemo(progressStore, []);
  const openGeneration = useRef(0);
  const shownImage = useRef(image.id);
  shownImage.current = image.id;
  const [load, setLoad] = useState<LoadState>({ imageId: image.id, status: 'loading' });
  const [imageSource, setImageSource] = useState<ImageSourceInput | undefined>(undefined);
  // The image id whose pixels the renderer has open (the overlay stays until then).
  const [drawnImage, setDrawnImage] = useState<string | null>(null);
  const sourceOwner = useRef<string | null>(null);
  const [recovered, setRecovered] = useState<{ imageId: string; changes: number } | null>(null);

  useEffect(() => {
    let live = true;
    const generation = ++openGeneration.current;
    const ref = { imageId: image.id, projectId, imageFilename: image.filename };
    opening.starting(image.id);
    // The previous image stays on the canvas meanwhile: no edit may land on its document now.
    editor.setInputPaused(true);
    setLoad({ imageId: image.id, status: 'loading' });
    progress.clear();
    setRecovered(null);
    auto.setImage(image.filename);
    // A viewer's editor never saves: no save-manager slot, no link to it.
    const saving = !readOnly;
    if (saving) link.expect(image.id);
    let opened = false;
    // Opened in the save manager but left before it was attached: close it, unless this screen
    // is already opening the same image again.
    const abandon = () => {
      if (!opened || link.image?.imageId === image.id) return;
      opened = false;
      if (openGeneration.current === generation || shownImage.current !== image.id) saver.close(image.id);
    };
    const report = (from: number, to: number) => (done: number, total: number) => progress.report(image.id, total, from + (to - from) * (total ? done / total : 1));
    (async () => {
      const { pixels, body } = await openImage(image, orgId, projectId);
      if (!live) return;
      editor.setImageSize({ width: pixels.width, height: pixels.height });
      const data = await parseLoadData(body, { isCancelled: () => !live, onCount: (total) => progress.report(image.id, total, 0), onProgress: report(0, PARSE_SHARE) });
      if (!data || !live) return;
      opening.loadedVersion(image.id, data.version);
      // The document is validated and built in slices while the save manager looks for work this
      // device kept for the image; if there is some, that document is loaded instead.
      const building = link.load(data.annotations, { onProgress: report(PARSE_SHARE, 1), historyKey: image.id });
      building.catch(() => undefined); // awaited below, unless the recovered document replaces it
      let recovery: Awaited<ReturnType<typeof saver.open>> = null;
      if (saving) {
        recovery = await saver.open(ref, data);
        opened = true;
      }
      if (!live) return abandon();
      const loaded = recovery ? await link.load(recovery.annotations, { onProgress: report(PARSE_SHARE, 1), historyKey: image.id }) : await building;
      if (!loaded || !live) return abandon();
      if (recovery) setRecovered({ imageId: image.id, changes: recovery.changes });
      if (saving) link.attach(ref);
      editor.setInputPaused(false);
      // Opened again after a restore: the view stays where the user was looking.
      const restoredCamera = opening.restoredCamera(image.id);
      if (restoredCamera) editor.setCamera(restoredCamera);
      else editor.fitToScreen();
      sourceOwner.current = image.id;
      setImageSource((prev) => {
        // The same pixels again (reopened image): the renderer already has them.
        if (prev === pixels.source) setDrawnImage(image.id);
        return pixels.source;
      });
      setLoad({ imageId: image.id, status: 'ready' });
      opening.finished(image.id);
    })().catch((err: unknown) => {
      abandon();
      if (!live) return;
      console.error('Failed to open image', err);
      setLoad({ imageId: image.id, status: 'error', message: loadErrorMessage(err) });
      opening.finished(image.id);
    });
    return () => {
      live = false;
      // A drag or drawing in progress ends here (rolled back, still saved for this image), and
      // nothing else reaches this document.
      editor.setInputPaused(true);
      // A load in progress stops at its next slice; the document stays as it is until the next one.
      editor.cancelLoad();
      // Captures the document now; the save still happens after the editor moves on.
      link.detach(image.id);
    };
    // Reload only when the image itself changes (or the role starts or stops allowing edits, or a
    // restore made another version current).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [image.id, editor, readOnly, reopenToken]);

  const onImageReady = useCallback((err: Error | null) => {
    if (err) {
      console.error('Failed to open the image pixels', err);
      setLoad((l) => ({ imageId: l.imageId, status: 'error', message: 'The image file could not be opened. It may be damaged or in a format this browser cannot read.' }));
      return;
    }
    setDrawnImage(sourceOwner.current);
  }, []);

  const discardRecovered = async () => {
    if (!recovered) return;
    await saver.discard(recovered.imageId);
    setRecovered(null);
    try {
      const data = await loadAnnotations(image, projectId);
      if (!(await link.load(data.annotations, { historyKey: image.id }))) return;
      await saver.open({ imageId: image.id, projectId, imageFilename: image.filename }, data);
    } catch (err) {
      toast(serverMessage(err, 'Failed to reload the saved annotations'), 'danger', 5000);
    }
  };

  // Keys wait for this image's document, not for its pixels to be drawn.
  documentReady.current = load.status === 'ready' && load.imageId === image.id;
  const ready = load.status === 'ready' && load.imageId === image.id && drawnImage === image.id;
  // A switch that takes long shows the overlay after all.
  const [slow, setSlow] = useState<string | null>(null);
  useEffect(() => {
    if (ready) return;
    const t = window.setTimeout(() => setSlow(image.id), SLOW_SWITCH_MS);
    return () => window.clearTimeout(t);
  }, [image.id, ready]);
  const failed = load.status === 'error' && load.imageId === image.id;
  return {
    load,
    progress,
    imageSource,
    onImageReady,
    /** The document and its pixels are up. */
    ready,
    /** Another image is still on the canvas while this one opens: no loading overlay over it (yet). */
    keepPrevious: !ready && !failed && drawnImage !== null && drawnImage !== image.id && slow !== image.id,
    /** This image's document is still on its way. */
    documentLoading: load.imageId !== image.id || load.status === 'loading',
    /** Work kept on this device was restored for this image (hidden while a version is looked at). */
    recovered: recovered && recovered.imageId === image.id ? recovered : null,
    keepRecovered: () => setRecovered(null),
    discardRecovered,
  };
}

function loadErrorMessage(err: unknown): string {
  if (err instanceof Error && err.name === 'ZodError') return 'The annotations saved for this image are not valid, so the editor cannot open them.';
  if (err instanceof SyntaxError) return 'The annotations of this image could not be read.';
  return err instanceof Error && !('status' in err) ? err.message : serverMessage(err, 'The image could not be loaded.');
}
