// The image's stage in the editor's top bar (issue 19), without React: shown at once when set
// (PATCH /images/{id}/status), rolled back with a word when the server refuses, and followed when a
// save moves a new image to In progress. Whoever keeps copies of the image (the screen's query
// cache, the Data tab's list) hears of each stage learnt (`onLearnt`) and of each one the server
// accepted (`onConfirmed`). The screen reads it (pages/annotate/hooks/useImageStage.ts).
import type { ImageStatus } from '../../contract/images';
import type { SaveDataResponse } from '../../contract/annotation-api';
import { api, serverMessage } from '../api/client';
import { stageLabel } from '../lib/stages';
import { toast } from '../stores/toast';
import { MESSAGE_MS, type Tell } from './session';

/** The image as the stage needs it. */
export interface StagedImage {
  id: string;
  filename: string;
  status: ImageStatus;
}

export interface ImageStageState {
  /** The stage set or learnt here, for the image it belongs to (the screen may move to another image). */
  known: { id: string; status: ImageStatus } | null;
  /** A stage change is on its way to the server. */
  busy: boolean;
  /** The top bar's stage picker is open. */
  open: boolean;
}

export interface ImageStageOptions {
  orgId: string;
  /** Saves' answers (the save manager's onSaved). */
  saver: { onSaved(listener: (imageId: string, res: SaveDataResponse) => void): () => void };
  /** PATCH /images/{id}/status (api.updateImageStatus by default). */
  update?(imageId: string, orgId: string, status: ImageStatus): Promise<{ image: { status: ImageStatus } }>;
  /** Short messages for the user (the app's toasts by default). */
  tell?: Tell;
}

export class ImageStage {
  private state: ImageStageState = { known: null, busy: false, open: false };
  private readonly listeners = new Set<() => void>();
  private readonly learnt = new Set<(imageId: string, status: ImageStatus) => void>();
  private readonly confirmed = new Set<(imageId: string, status: ImageStatus) => void>();
  private readonly update: NonNullable<ImageStageOptions['update']>;
  private readonly tell: Tell;
  /** The image the screen shows (a save of another image moves nothing here), and its stage as loaded. */
  private shownId: string | null = null;
  private shownStatus: ImageStatus | null = null;

  constructor(private readonly opts: ImageStageOptions) {
    this.update = opts.update ?? api.updateImageStatus;
    this.tell = opts.tell ?? toast;
  }

  getState = (): ImageStageState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The stage `image` is shown with: the one set or learnt here, else the image's own. */
  statusOf(image: StagedImage): ImageStatus {
    const { known } = this.state;
    return known && known.id === image.id ? known.status : image.status;
  }

  /** The image the screen shows now, with its stage as loaded when known. */
  show(imageId: string, status: ImageStatus | null = null): void {
    this.shownId = imageId;
    this.shownStatus = status;
  }

  /**
   * Follows saves of the shown image into In progress: one that moved it there, or any whose answer
   * says it is there while it is shown as Not started (a co-editor's save moved it first; before,
   * this tab kept saying Not started). Only that move: a save's answer may be older than a stage
   * chosen meanwhile. Returns the function that stops.
   */
  start(): () => void {
    return this.opts.saver.onSaved((imageId, res) => {
      if (imageId !== this.shownId) return;
      const { known } = this.state;
      const shown = known && known.id === imageId ? known.status : this.shownStatus;
      if (res.status_updated || (res.status === 'annotating' && shown === 'new' && !this.state.busy)) this.remember(imageId, res.status);
    });
  }

  /** Every stage learnt (set, confirmed, or moved by a save): the image's cached copies take it. */
  onLearnt(fn: (imageId: string, status: ImageStatus) => void): () => void {
    this.learnt.add(fn);
    return () => this.learnt.delete(fn);
  }

  /** A stage the server accepted: the project's counts and the Data tab's list are out of date. */
  onConfirmed(fn: (imageId: string, status: ImageStatus) => void): () => void {
    this.confirmed.add(fn);
    return () => this.confirmed.delete(fn);
  }

  setOpen(open: boolean): void {
    this.set({ open });
  }

  /** Shift+S: opens the picker, or says why this role may not set stages. */
  openPicker(deniedReason: string | null): void {
    if (deniedReason) this.tell(deniedReason, 'neutral', MESSAGE_MS);
    else this.setOpen(true);
  }

  /** Sets `image`'s stage: shown at once, rolled back with the server's word if it refuses. */
  async setStage(image: StagedImage, next: ImageStatus): Promise<void> {
    const id = image.id;
    const before = this.statusOf(image);
    if (next === before) return;
    this.set({ known: { id, status: next }, busy: true });
    try {
      const res = await this.update(id, this.opts.orgId, next);
      this.remember(id, res.image.status);
      this.tell(`${image.filename} set to ${stageLabel(res.image.status)}`, 'success', MESSAGE_MS);
      for (const fn of [...this.confirmed]) fn(id, res.image.status);
    } catch (err) {
      const { known } = this.state;
      if (known && known.id === id) this.set({ known: { id, status: before } });
      this.tell(serverMessage(err, 'Failed to update image status. Please try again.'), 'danger', 5000);
    } finally {
      this.set({ busy: false });
    }
  }

  private remember(id: string, status: ImageStatus): void {
    this.set({ known: { id, status } });
    for (const fn of [...this.learnt]) fn(id, status);
  }

  private set(patch: Partial<ImageStageState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l();
  }
}
