// Auto-Annotate tool (spec sections 2 and 4): click-based assisted segmentation. A state machine:
// idle (no prompt) -> prompting (points and/or a box collected, the mask shown) <-> waiting (a
// mask request is debounced or in flight). Left click: positive point, always (also inside the
// mask); right-click or Shift-click: negative point (as in CVAT); press and drag past 10 screen px:
// a box prompt. The prompt is a list of steps (each click, each box): undoStep() (Ctrl+Z through
// Editor.undo) takes the last one off, redoStep() puts it back, Backspace takes off the last click;
// a step back shows the mask that step had at once, without asking again. Each new prompt cancels
// the request in flight and asks again after 100 ms; an answer for an abandoned prompt is ignored.
// Enter accepts the mask (editor.auto.onAccepted), Escape drops the prompt.
// The backend is whatever the app plugged in (editor.auto.setSegmenter); the engine knows no server.
import { pointInRing, rectFromCorners } from '../../model/geometry';
import type { Rect } from '../../model/types';
import { CLICK_DRAG_DISTANCE } from '../box';
import type { Tool, ToolApi, ToolKeyEvent, ToolPointerEvent } from '../types';
import type { AutoPoint, AutoPreview, MaskProposal, SegmentPrompt } from './types';

/** Requests wait this long for more clicks (spec: debounced 100 ms). */
export const MASK_DEBOUNCE_MS = 100;

export type AutoPhase = 'idle' | 'prompting' | 'waiting';

/** Even-odd test over the proposal's polygons (outer paths and holes); a click's polarity no longer depends on it. */
export function insideProposal(mask: MaskProposal | null, x: number, y: number): boolean {
  if (!mask) return false;
  let inside = false;
  for (const p of mask.polygons) {
    for (const ring of [p.path, ...p.holes]) if (ring.length >= 3 && pointInRing(x, y, ring)) inside = !inside;
  }
  return inside;
}

/** One step of the prompt: a click or a box (a later box replaces the earlier one as the prompt's box). */
type Step = { readonly kind: 'point'; readonly point: AutoPoint } | { readonly kind: 'box'; readonly box: Rect };

/** A step and the mask shown once it was answered (null: not answered yet). */
interface Entry {
  readonly step: Step;
  mask: MaskProposal | null;
}

interface Press {
  x: number;
  y: number;
  sx: number;
  sy: number;
  negative: boolean;
  /** Pressed with the right button: a click, never a box. */
  right: boolean;
  dragging: boolean;
  rect: Rect;
}

export class AutoTool implements Tool {
  readonly id = 'auto' as const;
  /** The prompt, oldest step first. */
  private steps: Entry[] = [];
  /** Steps taken off by undoStep / Backspace, the next to put back last. */
  private undone: Entry[] = [];
  private mask: MaskProposal | null = null;
  private press: Press | null = null;
  private timer: unknown = null;
  private inflight: { abort(): void } | null = null;
  /** Bumped by every new prompt and cancel: an answer from an older one is dropped. */
  private generation = 0;
  private failed = false;
  /** The backend's previous mask is this prompt's (false after a step back or forth: it is then asked afresh). */
  private previousIsCurrent = false;

  constructor(private readonly api: ToolApi) {}

  phase(): AutoPhase {
    if (this.timer !== null || this.inflight) return 'waiting';
    return this.steps.length || this.mask || this.press ? 'prompting' : 'idle';
  }

  private get points(): AutoPoint[] {
    return this.steps.flatMap((e) => (e.step.kind === 'point' ? [e.step.point] : []));
  }

  private get box(): Rect | null {
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const s = this.steps[i]!.step;
      if (s.kind === 'box') return s.box;
    }
    return null;
  }

  isBusy(): boolean {
    return this.phase() !== 'idle';
  }

  onPointerDown(e: ToolPointerEvent): void {
    if (e.button !== 0 && e.button !== 2) return;
    const [x, y] = this.api.clampToImage(e.x, e.y);
    // Presses outside the image are not prompts.
    if (x !== e.x || y !== e.y) return;
    const negative = e.button === 2 || Boolean(e.shiftKey);
    this.press = { x, y, sx: e.sx, sy: e.sy, negative, right: e.button === 2, dragging: false, rect: { x, y, width: 0, height: 0 } };
  }

  onPointerMove(e: ToolPointerEvent): void {
    const p = this.press;
    if (!p) return;
    // A box is dragged with the left button; a right press stays a click.
    if (!p.dragging && !p.right && Math.hypot(e.sx - p.sx, e.sy - p.sy) > CLICK_DRAG_DISTANCE) p.dragging = true;
    if (!p.dragging) return;
    const [x, y] = this.api.clampToImage(e.x, e.y);
    p.rect = rectFromCorners(p.x, p.y, x, y);
    this.show();
  }

  onPointerUp(e: ToolPointerEvent): void {
    const p = this.press;
    if (!p) return;
    this.press = null;
    if (p.dragging) {
      const [x, y] = this.api.clampToImage(e.x, e.y);
      const rect = rectFromCorners(p.x, p.y, x, y);
      if (rect.width < 1 || rect.height < 1) return this.show();
      this.push({ kind: 'box', box: rect });
    } else {
      this.push({ kind: 'point', point: { x: p.x, y: p.y, positive: !p.negative } });
    }
  }

  /** A new step: what was undone can no longer be put back. */
  private push(step: Step): void {
    this.steps = [...this.steps, { step, mask: null }];
    this.undone = [];
    this.request();
  }

  /** Ctrl+Z while prompting: takes the last click or box off. False when the prompt has no step. */
  undoStep(): boolean {
    if (this.press || this.steps.length === 0) return false;
    this.undone = [...this.undone, this.steps[this.steps.length - 1]!];
    this.steps = this.steps.slice(0, -1);
    this.afterStepChange();
    return true;
  }

  /** Ctrl+Shift+Z: puts back the step undoStep (or Backspace) took off. False when there is none. */
  redoStep(): boolean {
    if (this.press || this.undone.length === 0) return false;
    this.steps = [...this.steps, this.undone[this.undone.length - 1]!];
    this.undone = this.undone.slice(0, -1);
    this.afterStepChange();
    return true;
  }

  /** Backspace: takes the last click off (a box stays). False when there is no click. */
  private removeLastClick(): boolean {
    let i = this.steps.length - 1;
    while (i >= 0 && this.steps[i]!.step.kind !== 'point') i--;
    if (i < 0 || this.press) return false;
    const removed = this.steps[i]!;
    // The masks of this click and of the steps after it were answered for a prompt with it in place.
    if (i < this.steps.length - 1) for (const e of this.steps.slice(i)) e.mask = null;
    this.undone = [...this.undone, removed];
    this.steps = [...this.steps.slice(0, i), ...this.steps.slice(i + 1)];
    this.afterStepChange();
    return true;
  }

  canUndoStep(): boolean {
    return this.steps.length > 0 && !this.press;
  }

  canRedoStep(): boolean {
    return this.undone.length > 0 && !this.press;
  }

  /** After a step back or forth: the mask that prompt had is shown at once; otherwise it is asked for. */
  private afterStepChange(): void {
    this.previousIsCurrent = false;
    const top = this.steps[this.steps.length - 1];
    if (!top) {
      this.stop();
      this.mask = null;
      this.failed = false;
      return this.show();
    }
    if (top.mask) {
      this.stop();
      this.failed = false;
      this.mask = top.mask;
      return this.show();
    }
    this.request();
  }

  onDoubleClick(): void {}

  onKeyDown(e: ToolKeyEvent): boolean {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    if (e.key === 'Enter') {
      if (this.phase() === 'idle') return false;
      this.accept();
      return true;
    }
    if (e.key === 'Escape' && this.isBusy()) {
      this.cancel();
      return true;
    }
    if (e.key === 'Backspace') return this.removeLastClick();
    return false;
  }

  /** A mask is shown, no request runs and it covers something. */
  canAccept(): boolean {
    return this.phase() === 'prompting' && this.mask !== null && this.mask.area > 0 && !this.press;
  }

  /** Enter / Complete: hands the mask to the app and starts over; asks for a class when none is active. */
  accept(): boolean {
    if (!this.canAccept()) return false;
    const cls = this.api.view().activeClass;
    if (!cls) {
      this.api.emit({ type: 'needs-class', tool: 'auto' });
      return false;
    }
    const accepted = { proposal: this.mask!, pointCount: this.points.length, box: this.box, class: cls };
    this.cancel();
    this.api.proposalAccepted(accepted);
    return true;
  }

  /** Escape / Clear / tool switch / load: no points, no box, no mask, nothing in flight. */
  cancel(): void {
    this.stop();
    this.steps = [];
    this.undone = [];
    this.mask = null;
    this.press = null;
    this.failed = false;
    this.previousIsCurrent = false;
    this.api.setDrawing(null);
  }

  /** Drops the debounced and the in-flight request; their answers will be ignored. */
  private stop(): void {
    if (this.timer !== null) clearTimeout(this.timer as Parameters<typeof clearTimeout>[0]);
    this.timer = null;
    this.inflight?.abort();
    this.inflight = null;
    this.generation++;
  }

  private request(): void {
    this.stop();
    this.failed = false;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.fetch();
    }, MASK_DEBOUNCE_MS);
    this.show();
  }

  private prompt(): SegmentPrompt {
    const positive = this.points.filter((p) => p.positive).map((p) => [p.x, p.y] as [number, number]);
    const negative = this.points.filter((p) => !p.positive).map((p) => [p.x, p.y] as [number, number]);
    const b = this.box;
    return b ? { positive, negative, box: [b.x, b.y, b.width, b.height] } : { positive, negative };
  }

  private async fetch(): Promise<void> {
    const segmenter = this.api.segmenter();
    const prompt = this.prompt();
    if (!segmenter || (prompt.positive.length === 0 && !prompt.box)) {
      // Nothing to segment (only negative points): no mask.
      this.mask = null;
      return this.show();
    }
    const ctl = new AbortController();
    this.inflight = ctl;
    const gen = ++this.generation;
    const top = this.steps[this.steps.length - 1];
    this.show();
    try {
      const mask = await segmenter.mask(prompt, this.mask !== null && this.previousIsCurrent, ctl.signal);
      if (gen !== this.generation) return;
      this.mask = mask;
      this.previousIsCurrent = true;
      if (top) top.mask = mask;
    } catch {
      if (gen !== this.generation) return; // superseded or cancelled
      this.failed = !ctl.signal.aborted;
    }
    this.inflight = null;
    this.show();
  }

  private show(): void {
    const p = this.press?.dragging ? this.press : null;
    if (this.phase() === 'idle' && !p) return this.api.setDrawing(null);
    const preview: AutoPreview = {
      kind: 'auto',
      points: this.points,
      box: p ? p.rect : this.box,
      dragging: Boolean(p),
      mask: this.mask,
      waiting: this.phase() === 'waiting',
      failed: this.failed,
    };
    this.api.setDrawing(preview);
  }
}

export type { AbortSignalLike, AutoPoint, AutoPreview, MaskPolygon, MaskProposal, ProposalAccepted, Segmenter, SegmentPrompt } from './types';
