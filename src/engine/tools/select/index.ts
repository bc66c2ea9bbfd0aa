// Select tool. States:
//   idle -> pointing-shape -> translating          (click / drag shapes; shift-click toggles)
//   idle -> pointing-canvas -> brushing            (click empty space clears; drag = marquee)
//   idle -> vertex (pointing, then dragging)       (vertex handles of selected paths)
//   idle -> resizing                               (the 8 handles of a selected box)
// A skeleton's labelled points are vertex handles too, also on a skeleton not yet selected: a
// press on one picks the skeleton and drags that point alone (issue 33).
// Vertex editing: drag a vertex to move it; click an edge midpoint (or alt-click anywhere on an
// edge) to insert a vertex there and keep dragging it; alt-click a vertex to delete it (or
// click it and press Delete). Every drag is one history entry. Read-only (view.readOnly): clicks,
// shift-clicks and the marquee select; nothing moves and no handle is offered.
import { KEYPOINT_HIT_SCALE, distSqToSegment, ringsOf, skeletonPointAt } from '../../model/geometry';
import { MIN_BOX_SIZE, type EditorAnnotation, type Rect, type VertexRef } from '../../model/types';
import { hitRadius, type Tool, type ToolApi, type ToolKeyEvent, type ToolPointerEvent } from '../types';

/** Screen pixels the pointer must travel before a press becomes a drag. */
export const DRAG_THRESHOLD = 3;
/** Handles are only offered on this many selected shapes, to keep pointer-down cheap. */
const MAX_HANDLE_SHAPES = 100;

type HandleDir = 'nw' | 'n' | 'ne' | 'e' | 'se' | 's' | 'sw' | 'w';
const DIRS: readonly HandleDir[] = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w'];

interface Start {
  x: number;
  y: number;
  sx: number;
  sy: number;
}

type State =
  | { k: 'idle' }
  | { k: 'pointing-shape'; id: string; start: Start; selectOnlyOnUp: boolean }
  | { k: 'translating'; ids: string[]; start: Start; origin: Record<string, EditorAnnotation>; lastDx: number; lastDy: number }
  | { k: 'pointing-canvas'; start: Start; base: ReadonlySet<string> }
  | { k: 'brushing'; start: Start; base: ReadonlySet<string> }
  | { k: 'vertex'; ref: VertexRef; start: Start; dragging: boolean; inserted: boolean }
  | { k: 'resizing'; id: string; dir: HandleDir; rect: Rect; started: boolean; start: Start };

type Handle =
  | { kind: 'resize'; id: string; dir: HandleDir; rect: Rect }
  | { kind: 'vertex'; ref: VertexRef }
  | { kind: 'insert'; ref: VertexRef; x: number; y: number };

export function boxHandlePoint(r: Rect, dir: HandleDir): [number, number] {
  const x = dir.includes('w') ? r.x : dir.includes('e') ? r.x + r.width : r.x + r.width / 2;
  const y = dir.includes('n') ? r.y : dir.includes('s') ? r.y + r.height : r.y + r.height / 2;
  return [x, y];
}

const startOf = (e: ToolPointerEvent): Start => ({ x: e.x, y: e.y, sx: e.sx, sy: e.sy });
const moved = (s: Start, e: ToolPointerEvent) => Math.hypot(e.sx - s.sx, e.sy - s.sy) > DRAG_THRESHOLD;

/** New box rect when dragging handle `dir` to (px, py): the opposite side stays put, min 10 x 10. */
export function resizeRect(r: Rect, dir: HandleDir, px: number, py: number): Rect {
  let { x, y, width, height } = r;
  const axis = (fixed: number, p: number): [number, number] => {
    const size = Math.max(MIN_BOX_SIZE, Math.abs(p - fixed));
    return [p < fixed ? fixed - size : fixed, size];
  };
  if (dir.includes('w')) [x, width] = axis(r.x + r.width, px);
  else if (dir.includes('e')) [x, width] = axis(r.x, px);
  if (dir.includes('n')) [y, height] = axis(r.y + r.height, py);
  else if (dir.includes('s')) [y, height] = axis(r.y, py);
  return { x, y, width, height };
}

export class SelectTool implements Tool {
  readonly id = 'select' as const;
  private state: State = { k: 'idle' };

  constructor(private readonly api: ToolApi) {}

  isBusy(): boolean {
    return this.state.k !== 'idle';
  }

  private findHandle(e: ToolPointerEvent): Handle | null {
    const tol = hitRadius(e.scale);
    const tol2 = tol * tol;
    const view = this.api.view();
    if (view.selected.size > MAX_HANDLE_SHAPES) return null;
    const shapes: EditorAnnotation[] = [];
    for (const id of view.selected) {
      const a = this.api.get(id);
      if (a && !view.hidden.has(id)) shapes.push(a);
    }
    // Vertices and box handles first (the nearest one wins, small boxes put handles close
    // together), then edge midpoints and alt-clicked edges.
    let best: Handle | null = null;
    let bestD = tol2;
    for (const a of shapes) {
      if (a.type === 'box') {
        for (const dir of DIRS) {
          const [hx, hy] = boxHandlePoint(a, dir);
          const d = (hx - e.x) ** 2 + (hy - e.y) ** 2;
          if (d <= bestD) {
            bestD = d;
            best = { kind: 'resize', id: a.id, dir, rect: { x: a.x, y: a.y, width: a.width, height: a.height } };
          }
        }
      }
      if (a.type === 'skeleton') {
        const i = skeletonPointAt(a.keypoints, e.x, e.y, Math.sqrt(bestD));
        if (i >= 0) {
          bestD = (a.keypoints[i]!.x - e.x) ** 2 + (a.keypoints[i]!.y - e.y) ** 2;
          best = { kind: 'vertex', ref: { id: a.id, ring: 0, index: i } };
        }
      }
      const rings = ringsOf(a);
      for (let r = 0; r < rings.length; r++) {
        const ring = rings[r]!;
        for (let i = 0; i < ring.length; i++) {
          const [vx, vy] = ring[i]!;
          const d = (vx - e.x) ** 2 + (vy - e.y) ** 2;
          if (d <= bestD) {
            bestD = d;
            best = { kind: 'vertex', ref: { id: a.id, ring: r, index: i } };
          }
        }
      }
    }
    if (best) return best;
    for (const a of shapes) {
      const rings = ringsOf(a);
      for (let r = 0; r < rings.length; r++) {
        const ring = rings[r]!;
        const closed = a.type === 'polygon';
        const edges = closed ? ring.length : ring.length - 1;
        for (let i = 0; i < edges; i++) {
          const [ax, ay] = ring[i]!;
          const [bx, by] = ring[(i + 1) % ring.length]!;
          const mx = (ax + bx) / 2, my = (ay + by) / 2;
          const ref = { id: a.id, ring: r, index: i + 1 };
          if ((mx - e.x) ** 2 + (my - e.y) ** 2 <= tol2) return { kind: 'insert', ref, x: mx, y: my };
          if (e.altKey && distSqToSegment(e.x, e.y, ax, ay, bx, by) <= tol2) {
            // Insert at the projection of the pointer onto the edge.
            const dx = bx - ax, dy = by - ay;
            const len = dx * dx + dy * dy;
            const t = len === 0 ? 0 : Math.min(1, Math.max(0, ((e.x - ax) * dx + (e.y - ay) * dy) / len));
            return { kind: 'insert', ref, x: ax + t * dx, y: ay + t * dy };
          }
        }
      }
    }
    return null;
  }

  onPointerDown(e: ToolPointerEvent): void {
    if (e.button !== 0 || this.state.k !== 'idle') return;
    const api = this.api;
    const handle = api.view().readOnly ? null : this.findHandle(e);
    if (handle?.kind === 'resize') {
      this.state = { k: 'resizing', id: handle.id, dir: handle.dir, rect: handle.rect, started: false, start: startOf(e) };
      return;
    }
    if (handle?.kind === 'vertex') {
      if (e.altKey) {
        api.execute('delete-vertex', { ref: handle.ref });
        api.setSelectedVertex(null);
        return;
      }
      api.setSelectedVertex(handle.ref);
      this.state = { k: 'vertex', ref: handle.ref, start: startOf(e), dragging: false, inserted: false };
      return;
    }
    if (handle?.kind === 'insert') {
      api.begin('Insert point');
      api.execute('insert-vertex', { ref: handle.ref, x: handle.x, y: handle.y });
      api.setSelectedVertex(handle.ref);
      this.state = { k: 'vertex', ref: handle.ref, start: startOf(e), dragging: true, inserted: true };
      return;
    }
    api.setSelectedVertex(null);
    const hit = api.hitTest(e.x, e.y, hitRadius(e.scale));
    const selected = api.view().selected;
    const hitShape = hit ? api.get(hit) : undefined;
    if (hitShape?.type === 'skeleton' && !e.shiftKey && !api.view().readOnly) {
      const index = skeletonPointAt(hitShape.keypoints, e.x, e.y, hitRadius(e.scale) * KEYPOINT_HIT_SCALE);
      if (index >= 0) {
        const ref = { id: hitShape.id, ring: 0, index };
        api.setSelection([hitShape.id]);
        api.setSelectedVertex(ref);
        this.state = { k: 'vertex', ref, start: startOf(e), dragging: false, inserted: false };
        return;
      }
    }
    if (hit) {
      if (e.shiftKey) {
        const next = new Set(selected);
        if (next.has(hit)) {
          next.delete(hit);
          api.setSelection(next);
          return;
        }
        next.add(hit);
        api.setSelection(next);
        this.state = { k: 'pointing-shape', id: hit, start: startOf(e), selectOnlyOnUp: false };
        return;
      }
      const wasSelected = selected.has(hit);
      if (!wasSelected) api.setSelection([hit]);
      this.state = { k: 'pointing-shape', id: hit, start: startOf(e), selectOnlyOnUp: wasSelected && selected.size > 1 };
      return;
    }
    const base = e.shiftKey ? new Set(selected) : new Set<string>();
    if (!e.shiftKey) api.setSelection([]);
    this.state = { k: 'pointing-canvas', start: startOf(e), base };
  }

  onPointerMove(e: ToolPointerEvent): void {
    const api = this.api;
    const s = this.state;
    switch (s.k) {
      case 'idle':
        api.setHovered(api.hitTest(e.x, e.y, hitRadius(e.scale)));
        return;
      case 'pointing-shape': {
        if (!moved(s.start, e) || api.view().readOnly) return;
        const ids = [...api.view().selected].filter((id) => api.get(id));
        const origin: Record<string, EditorAnnotation> = {};
        for (const id of ids) origin[id] = api.get(id)!;
        api.begin(`Move ${ids.length} annotation(s)`);
        this.state = { k: 'translating', ids, start: s.start, origin, lastDx: 0, lastDy: 0 };
        this.onPointerMove(e);
        return;
      }
      case 'translating': {
        const dx = e.x - s.start.x, dy = e.y - s.start.y;
        if (dx === s.lastDx && dy === s.lastDy) return;
        // Always the total offset from where the drag started: no drift (see MovePayload.origin).
        api.execute('move', { ids: s.ids, dx, dy, origin: s.origin });
        s.lastDx = dx;
        s.lastDy = dy;
        return;
      }
      case 'pointing-canvas':
        if (!moved(s.start, e)) return;
        this.state = { k: 'brushing', start: s.start, base: s.base };
        this.onPointerMove(e);
        return;
      case 'brushing': {
        const minX = Math.min(s.start.x, e.x), maxX = Math.max(s.start.x, e.x);
        const minY = Math.min(s.start.y, e.y), maxY = Math.max(s.start.y, e.y);
        api.setMarquee({ x: minX, y: minY, width: maxX - minX, height: maxY - minY });
        const next = new Set(s.base);
        for (const id of api.queryInside({ minX, minY, maxX, maxY })) next.add(id);
        api.setSelection(next);
        return;
      }
      case 'vertex': {
        if (!s.dragging) {
          if (!moved(s.start, e)) return;
          s.dragging = true;
          api.begin('Move point');
        }
        const [x, y] = api.clampToImage(e.x, e.y);
        api.execute('move-vertex', { ref: s.ref, x, y });
        return;
      }
      case 'resizing': {
        if (!s.started) {
          if (!moved(s.start, e)) return;
          s.started = true;
          api.begin('Resize box');
        }
        const [x, y] = api.clampToImage(e.x, e.y);
        api.execute('resize-box', { id: s.id, rect: resizeRect(s.rect, s.dir, x, y) });
        return;
      }
    }
  }

  onPointerUp(): void {
    const s = this.state;
    this.state = { k: 'idle' };
    switch (s.k) {
      case 'pointing-shape':
        if (s.selectOnlyOnUp) this.api.setSelection([s.id]);
        return;
      case 'translating':
      case 'resizing':
        this.api.commit();
        return;
      case 'vertex':
        if (s.dragging) this.api.commit();
        return;
      case 'brushing':
        this.api.setMarquee(null);
        return;
      case 'pointing-canvas':
      case 'idle':
        return;
    }
  }

  onDoubleClick(): void {}

  onKeyDown(e: ToolKeyEvent): boolean {
    if (e.key === 'Escape' && this.state.k !== 'idle') {
      this.cancel();
      return true;
    }
    return false;
  }

  cancel(): void {
    const s = this.state;
    this.state = { k: 'idle' };
    if (s.k === 'translating' || s.k === 'resizing' || (s.k === 'vertex' && s.dragging)) this.api.rollback();
    if (s.k === 'brushing') {
      this.api.setMarquee(null);
      this.api.setSelection(s.base);
    }
    if (s.k === 'vertex' && s.inserted) this.api.setSelectedVertex(null);
  }
}
