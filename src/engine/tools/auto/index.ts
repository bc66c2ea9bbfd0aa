// Auto-Annotate tool (spec sections 2 and 4): click-based assisted segmentation. A state machine:
// idle (no prompt) -> prompting (points and/or a box collected, the mask shown) <-> waiting (a
// mask request is debounced or in flight). Click: positive point; Shift-click, or a click inside
// the current mask: negative point; press and drag past 10 screen px: a box prompt. Each new
// prompt cancels the request in flight and asks again after 100 ms; an answer for an abandoned
// prompt is ignored. Enter accepts the mask (Editor.onProposalAccepted), Escape drops the prompt.
// The backend is whatever the app plugged in (Editor.setSegmenter); the engine knows no server.
import { pointInRing, rectFromCorners } from '../../model/geometry';
import type { Rect } from '../../model/types';
import { CLICK_DRAG_DISTANCE } from '../box';
import type { Tool, ToolApi, ToolKeyEvent, ToolPointerEvent } from '../types';
import type { AutoPoint, AutoPreview, MaskProposal, SegmentPrompt } from './types';

/** Requests wait this long for more clicks (spec: debounced 100 ms). */
export const MASK_DEBOUNCE_MS = 100;

export type AutoPhase = 'idle' | 'prompting' | 'waiting';

/** Even-odd test over the proposal's polygons (outer paths and holes). */
export function insideProposal(mask: MaskProposal | null, x: number, y: number): boolean {
  if (!mask) return false;
  let inside = false;
  for (const p of mask.polygons) {
    for (const ring of [p.path, ...p.holes]) if (ring.length >= 3 && pointInRing(x, y, ring)) inside = !inside;
  }
  return inside;
}

interface Press {
  x: number;
  y: number;
  sx: number;
  sy: number;
  shift: boolean;
  dragging: boolean;
  rect: Rect;
}

export class AutoTool implements Tool {
  readonly id = 'auto' as const;
  private points: AutoPoint[] = [];
  private box: Rect | null = null;
  private mask: MaskProposal | null = null;
  private press: Press | null = null;
  private timer: unknown = null;
  private inflight: { abort(): void } | null = null;
  /** Bumped by every new prompt and cancel: an answer from an older one is dropped. */
  private generation = 0;
  private failed = false;

  constructor(private readonly api: ToolApi) {}

  phase(): AutoPhase {
    if (this.timer !== null || this.inflight) return 'waiting';
    return this.points.length || this.box || this.mask || this.press ? 'prompting' : 'idle';
  }

  isBusy(): boolean {
    return this.phase() !== 'idle';
  }

  onPointerDown(e: ToolPointerEvent): void {
    if (e.button !== 0) return;
    const [x, y] = this.api.clampToImage(e.x, e.y);
    // Presses outside the image are not prompts.
    if (x !== e.x || y !== e.y) return;
    this.press = { x, y, sx: e.sx, sy: e.sy, shift: Boolean(e.shiftKey), dragging: false, rect: { x, y, width: 0, height: 0 } };
  }

  onPointerMove(e: ToolPointerEvent): void {
    const p = this.press;
    if (!p) return;
    if (!p.dragging && Math.hypot(e.sx - p.sx, e.sy - p.sy) > CLICK_DRAG_DISTANCE) p.dragging = true;
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
      this.box = rect;
    } else {
      const positive = !(p.shift || insideProposal(this.mask, p.x, p.y));
      this.points = [...this.points, { x: p.x, y: p.y, positive }];
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
    this.points = [];
    this.box = null;
    this.mask = null;
    this.press = null;
    this.failed = false;
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
    this.show();
    try {
      const mask = await segmenter.mask(prompt, this.mask !== null, ctl.signal);
      if (gen !== this.generation) return;
      this.mask = mask;
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
