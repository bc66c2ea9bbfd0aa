// Opening an image in the session's editor, without React: its pixels and its document, parsed,
// validated and built in slices with progress, while the save manager looks for work this device
// kept for it (loaded instead when there is some). A viewer's editor never saves: no save slot,
// no link to it. The previous image stays in the editor meanwhile, its input paused, so no edit
// lands on a document on its way out. ./imageLoading.ts calls `openImage` when the screen's image
// changes and the function it returns when it leaves it, and keeps what the stage draws (its
// state, the pixels, the recovered notice) from the callbacks.
import type { Image } from '../../contract/images';
import type { CameraState } from '../../engine';
import type { ImageSourceInput } from '../../workers/render-client';
import { parseLoadData } from '../api/annotations/editorApi';
import { openImage as openPixelsAndDocument } from '../api/annotations/preload';
import type { EditorSession } from './session';

/** The share of a load's progress bar that parsing the response takes (validating and building: the rest). */
const PARSE_SHARE = 0.2;

/** What an open tells the History (./history.ts `opening`) and the live image as it goes. */
export interface OpeningHooks {
  /** An open of `imageId` starts. */
  starting(imageId: string): void;
  /** The server version the opened document builds on. */
  loadedVersion(imageId: string, version: number): void;
  /** Reopened after a restore: the camera to keep (where the user was looking); else null. */
  restoredCamera(imageId: string): CameraState | null;
  /** The open is over (ready, or failed: the stage says why). */
  finished(imageId: string): void;
}

export interface OpenImageOptions {
  image: Image;
  readOnly: boolean;
  opening: OpeningHooks;
  /** The image the screen shows now (it may have moved on while this one opened). */
  shownImage(): string;
  progress: { clear(): void; report(imageId: string, total: number, fraction: number): void };
  /** The document and the pixels are in: the renderer may draw them. */
  onReady(source: ImageSourceInput): void;
  /** Work kept on this device was loaded instead of the server's document. */
  onRecovered(changes: number): void;
  onError(err: unknown): void;
  /** The pixels and the document (preload.ts's openImage by default). */
  load?: typeof openPixelsAndDocument;
}

/** Per editor (one per screen): which open is the latest (an open left before it finished closes its slot only then). */
const generations = new WeakMap<object, number>();

/** Opens `image` in the session's editor; returns the function that leaves it. */
export function openImage(session: EditorSession, opts: OpenImageOptions): () => void {
  const { editor, link, saver, auto, orgId, projectId } = session;
  const { image, readOnly, opening, progress } = opts;
  const load = opts.load ?? openPixelsAndDocument;
  let live = true;
  const generation = (generations.get(editor) ?? 0) + 1;
  generations.set(editor, generation);
  const ref = { imageId: image.id, projectId, imageFilename: image.filename };
  opening.starting(image.id);
  // The previous image stays on the canvas meanwhile: no edit may land on its document now.
  editor.setInputPaused(true);
  progress.clear();
  auto.setImage(image.filename);
  const saving = !readOnly;
  if (saving) link.expect(image.id);
  let opened = false;
  // Opened in the save manager but left before it was attached: close it, unless this screen
  // is already opening the same image again.
  const abandon = () => {
    if (!opened || link.image?.imageId === image.id) return;
    opened = false;
    if (generations.get(editor) === generation || opts.shownImage() !== image.id) saver.close(image.id);
  };
  const report = (from: number, to: number) => (done: number, total: number) => progress.report(image.id, total, from + (to - from) * (total ? done / total : 1));
  (async () => {
    const { pixels, body } = await load(image, orgId, projectId);
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
    if (recovery) opts.onRecovered(recovery.changes);
    if (saving) link.attach(ref);
    editor.setInputPaused(false);
    // Opened again after a restore: the view stays where the user was looking.
    const restoredCamera = opening.restoredCamera(image.id);
    if (restoredCamera) editor.setCamera(restoredCamera);
    else editor.fitToScreen();
    opts.onReady(pixels.source);
    opening.finished(image.id);
  })().catch((err: unknown) => {
    abandon();
    if (!live) return;
    console.error('Failed to open image', err);
    opts.onError(err);
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
}
