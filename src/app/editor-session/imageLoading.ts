// The open image's loading state, without React (one per screen, across its images): the session's open (./openImage.ts) run per
// image, and what the stage draws from it: loading, ready or failed (with the words why), the
// progress of a large document, the pixels the renderer gets, the image whose pixels it has drawn,
// the restored-work notice (its Discard is the session's). Going to another image keeps the
// screen: its document replaces the previous one in the same Editor, and the previous image stays
// on the canvas until the next one's first frame, with no loading overlay unless that takes longer
// than SLOW_SWITCH_MS. The screen reads it (pages/annotate/hooks/useImageLoading.ts).
import type { Image } from '../../contract/images';
import type { ImageSourceInput } from '../../workers/render-client';
import { serverMessage } from '../api/client';
import { openImage, type OpeningHooks, type OpenImageOptions } from './openImage';
import type { EditorSession } from './session';

/** A switch to another image taking longer than this shows the stage's loading overlay. */
export const SLOW_SWITCH_MS = 1200;

/** `retry: false`: trying again cannot help (a browser that cannot draw the canvas), so no Try again is offered. */
export type LoadState = { imageId: string; status: 'loading' } | { imageId: string; status: 'ready' } | { imageId: string; status: 'error'; message: string; retry?: false };

interface LoadProgress {
  imageId: string;
  /** Annotations in the document. */
  total: number;
  /** 0-100. */
  percent: number;
}

/** The loading progress, apart from the rest of the state: only the progress bar follows it (once per percent). */
export function progressStore() {
  let value: LoadProgress | null = null;
  const listeners = new Set<() => void>();
  const set = (next: LoadProgress | null) => {
    value = next;
    for (const l of [...listeners]) l();
  };
  return {
    get: () => value,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    clear: () => set(null),
    /** `fraction` of the whole load (0-1) for the document of `total` annotations. */
    report(imageId: string, total: number, fraction: number) {
      const percent = Math.min(100, Math.floor(fraction * 100));
      if (value && value.imageId === imageId && value.total === total && value.percent === percent) return;
      set({ imageId, total, percent });
    },
  };
}
export type ProgressStore = ReturnType<typeof progressStore>;

export interface ImageLoadingState {
  load: LoadState;
  /** The pixels the renderer is given (the previous image's until the next one's are in). */
  imageSource: ImageSourceInput | undefined;
  /** The image id whose pixels the renderer has open (the overlay stays until then). */
  drawnImage: string | null;
  /** Work kept on this device was restored for this image. */
  recovered: { imageId: string; changes: number } | null;
  /** The image whose switch took longer than SLOW_SWITCH_MS. */
  slow: string | null;
}

export interface ImageLoadingOptions {
  /** The slow-switch timer's clock (the page's by default; tests pass a fake clock's). */
  timers?: { setTimer(fn: () => void, ms: number): unknown; clearTimer(handle: unknown): void };
  /** The pixels and the document (openImage's default by default). */
  load?: OpenImageOptions['load'];
}

const pageTimers = {
  setTimer: (fn: () => void, ms: number): unknown => setTimeout(fn, ms),
  clearTimer: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class ImageLoading {
  readonly progress = progressStore();
  private state: ImageLoadingState;
  private readonly listeners = new Set<() => void>();
  /** The image the screen shows now (it may have moved on while one opened). */
  private shownImage: string;
  /** The image whose pixels were last handed to the renderer. */
  private sourceOwner: string | null = null;
  private readonly timers: NonNullable<ImageLoadingOptions['timers']>;
  private slowTimer: { key: string; handle: unknown } | null = null;

  constructor(
    imageId: string,
    private readonly opts: ImageLoadingOptions = {},
  ) {
    this.timers = opts.timers ?? pageTimers;
    this.shownImage = imageId;
    this.state = { load: { imageId, status: 'loading' }, imageSource: undefined, drawnImage: null, recovered: null, slow: null };
  }

  getState = (): ImageLoadingState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The image the screen shows now (its render, before the open starts). */
  show(imageId: string): void {
    this.shownImage = imageId;
  }

  /** Opens `image` in the session's editor; returns the function that leaves it. */
  open(session: EditorSession, image: Image, readOnly: boolean, opening: OpeningHooks): () => void {
    this.shownImage = image.id;
    this.set({ load: { imageId: image.id, status: 'loading' }, recovered: null });
    return openImage(session, {
      image,
      readOnly,
      opening,
      shownImage: () => this.shownImage,
      progress: this.progress,
      load: this.opts.load,
      onReady: (source) => {
        this.sourceOwner = image.id;
        // The same pixels again (reopened image): the renderer already has them.
        const drawn = this.state.imageSource === source ? { drawnImage: image.id } : {};
        this.set({ imageSource: source, ...drawn, load: { imageId: image.id, status: 'ready' } });
      },
      onRecovered: (changes) => this.set({ recovered: { imageId: image.id, changes } }),
      onError: (err) => this.set({ load: { imageId: image.id, status: 'error', message: loadErrorMessage(err) } }),
    });
  }

  /** The renderer opened the pixels handed to it (or could not). */
  imageReady = (err: Error | null): void => {
    if (err) {
      console.error('Failed to open the image pixels', err);
      const imageId = this.state.load.imageId;
      // A browser that cannot draw the canvas: its own reason is the one to show, and a reload would not help.
      if (err.name === 'CanvasUnsupportedError') this.set({ load: { imageId, status: 'error', message: err.message, retry: false } });
      else this.set({ load: { imageId, status: 'error', message: 'The image file could not be opened. It may be damaged or in a format this browser cannot read.' } });
      return;
    }
    this.set({ drawnImage: this.sourceOwner });
  };

  /** Keep on the restored-work notice: the notice goes. */
  keepRecovered(): void {
    this.set({ recovered: null });
  }

  /** Discard on the restored-work notice (the session's): the notice goes once the work is dropped. */
  async discardRecovered(session: EditorSession, image: Image): Promise<void> {
    if (this.state.recovered) await session.discardRecovered(image, () => this.set({ recovered: null }));
  }

  /** What the stage shows for `imageId` (the screen's image as it renders). */
  view(imageId: string) {
    const { load, drawnImage, recovered, slow } = this.state;
    const documentIn = load.status === 'ready' && load.imageId === imageId;
    const ready = documentIn && drawnImage === imageId;
    const failed = load.status === 'error' && load.imageId === imageId;
    return {
      /** This image's document is in the editor (keys that act on it may). */
      documentIn,
      /** The document and its pixels are up. */
      ready,
      /** Another image is still on the canvas while this one opens: no loading overlay over it (yet). */
      keepPrevious: !ready && !failed && drawnImage !== null && drawnImage !== imageId && slow !== imageId,
      /** This image's document is still on its way. */
      documentLoading: load.imageId !== imageId || load.status === 'loading',
      /** Work kept on this device was restored for this image. */
      recovered: recovered && recovered.imageId === imageId ? recovered : null,
    };
  }

  /** The screen is gone: no timer left behind. */
  dispose(): void {
    if (this.slowTimer) this.timers.clearTimer(this.slowTimer.handle);
    this.slowTimer = null;
  }

  private set(patch: Partial<ImageLoadingState>): void {
    this.state = { ...this.state, ...patch };
    this.watchSlowSwitch();
    for (const l of [...this.listeners]) l();
  }

  /** While the shown image is not up, a timer marks its switch slow after SLOW_SWITCH_MS (restarted for each image). */
  private watchSlowSwitch(): void {
    const imageId = this.shownImage;
    const ready = this.view(imageId).ready;
    const key = `${imageId}:${ready}`;
    if (this.slowTimer?.key === key) return;
    this.dispose();
    if (!ready) this.slowTimer = { key, handle: this.timers.setTimer(() => this.set({ slow: imageId }), SLOW_SWITCH_MS) };
    else this.slowTimer = { key, handle: undefined };
  }
}

function loadErrorMessage(err: unknown): string {
  if (err instanceof Error && err.name === 'ZodError') return 'The annotations saved for this image are not valid, so the editor cannot open them.';
  if (err instanceof SyntaxError) return 'The annotations of this image could not be read.';
  return err instanceof Error && !('status' in err) ? err.message : serverMessage(err, 'The image could not be loaded.');
}
