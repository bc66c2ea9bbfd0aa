// The open image's live co-editing joined to its open, without React (one per image shown): the
// image's LiveImage (src/app/sync/live/liveImage.ts: changes saved elsewhere come into the
// document, the people on the image, their cursors) made on the session's link, save manager and
// live client. The two meet here: the open (./openImage.ts, through `opening`) tells the live
// image the version it loaded; the live image asks for a reopen when its change log no longer
// reaches back (`reopens` goes up: the screen opens the image again); the document's arrival
// catches up with what was saved meanwhile; and our selection goes to the others while the
// document is in, again to whoever arrives. The screen makes one per image
// (pages/annotate/hooks/useOpenImage.ts) and reads it.
import { LiveImage } from '../sync/live/liveImage';
import type { OpeningHooks } from './openImage';
import type { EditorSession } from './session';

export class LiveOpenImage {
  readonly image: LiveImage;
  /** The History's side of an open (the session's) with the live image's: the version loaded. */
  readonly opening: OpeningHooks;
  private reopens = 0;
  private readonly reopenListeners = new Set<() => void>();
  private documentIn = false;
  private stopSelection: (() => void) | null = null;

  constructor(
    private readonly session: EditorSession,
    readonly imageId: string,
    readOnly: boolean,
  ) {
    const { link, saver, live, projectId, history } = session;
    this.image = new LiveImage({ imageId, projectId, readOnly, link, saver, live, documentReady: () => session.documentReady, reopen: () => this.reopen() });
    const opening = history.opening;
    this.opening = {
      ...opening,
      loadedVersion: (id, version) => {
        opening.loadedVersion(id, version);
        if (id === imageId) this.image.loadedVersion(version);
      },
    };
  }

  /** Watches the image; returns the function that stops watching (and sending our selection). */
  start(): () => void {
    const stopWatching = this.image.start();
    let peers = this.image.getState().peers;
    const stopPeers = this.image.subscribe(() => {
      const now = this.image.getState().peers;
      if (now === peers) return;
      peers = now;
      // Someone arrived (or we joined again after a reconnect): they see our selection too.
      if (this.documentIn) this.sendSelection(true);
    });
    return () => {
      stopPeers();
      this.setDocumentIn(false);
      stopWatching();
    };
  }

  /** This tab's user on the live channel (told apart from the others among the peers). */
  get userId(): string | null {
    return this.session.live.userId;
  }

  /** How many times the live image asked for the image to be opened again. */
  reopenCount = (): number => this.reopens;

  subscribeReopen = (listener: () => void): (() => void) => {
    this.reopenListeners.add(listener);
    return () => this.reopenListeners.delete(listener);
  };

  /**
   * This image's document is in the editor (opened, reopened) or not: when it arrives, catch up
   * with what was saved meanwhile and send our selection, then each change of it, until it leaves.
   */
  setDocumentIn(on: boolean): void {
    if (on === this.documentIn) return;
    this.documentIn = on;
    this.stopSelection?.();
    this.stopSelection = null;
    if (!on) return;
    this.image.resync();
    this.sendSelection(true);
    const { editor } = this.session;
    this.stopSelection = editor.subscribe((c) => {
      if (c.view || c.document) this.sendSelection(false);
    });
  }

  private sendSelection(again: boolean): void {
    this.image.sendSelection(this.session.editor.getSelectedIds(), again);
  }

  private reopen(): void {
    this.reopens += 1;
    for (const l of [...this.reopenListeners]) l();
  }
}
