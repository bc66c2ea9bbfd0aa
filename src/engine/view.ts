// View state: everything the UI shows that is not part of the saved document. Replaced as a
// whole on change (never mutated), so a UI can compare snapshots by reference.
import { getAnnotation, type DocState } from './model/document';
import type { Point, Rect, VertexRef } from './model/types';
import type { AutoPreview } from './tools/auto/types';
import type { BrushPreview } from './tools/brush/types';
import type { SkeletonPreview } from './tools/skeleton';

export type ToolId = 'select' | 'box' | 'polygon' | 'polyline' | 'keypoint' | 'pan' | 'auto' | 'brush' | 'eraser' | 'skeleton';

/** What a tool is drawing right now (for the renderer's overlay). */
export type DrawingPreview =
  | { readonly kind: 'box'; readonly rect: Rect }
  | { readonly kind: 'polygon'; readonly points: readonly Point[]; readonly cursor: Point | null; readonly closable: boolean; readonly holeOf: string | null }
  | { readonly kind: 'polyline'; readonly points: readonly Point[]; readonly cursor: Point | null }
  /** Auto-Annotate's prompt: its points, its box and the proposed mask. */
  | AutoPreview
  /** The brush's or the eraser's circle at the pointer. */
  | BrushPreview
  /** The skeleton tool: the next point's name at the pointer. */
  | SkeletonPreview;

export interface ViewState {
  readonly tool: ToolId;
  /** Class given to new annotations; tools refuse to start without one ('needs-class'). */
  readonly activeClass: string | null;
  readonly selected: ReadonlySet<string>;
  readonly hidden: ReadonlySet<string>;
  readonly hovered: string | null;
  /** The vertex picked in the select tool (Delete removes it). */
  readonly selectedVertex: VertexRef | null;
  /** 0-100, the fill transparency slider. */
  readonly transparency: number;
  readonly drawing: DrawingPreview | null;
  /** Marquee rectangle in image coordinates while brushing. */
  readonly marquee: Rect | null;
  /**
   * View only (Editor.setReadOnly): the document can be looked at, selected, hidden, copied,
   * panned and zoomed, but no command runs.
   */
  readonly readOnly: boolean;
  /** The keyboard's drawing cursor in image coordinates (issue 37, ./keyboard-cursor.ts); absent or null: none. */
  readonly keyCursor?: Point | null;
}

export const initialView = (): ViewState => ({
  tool: 'select',
  activeClass: null,
  selected: new Set(),
  hidden: new Set(),
  hovered: null,
  selectedVertex: null,
  transparency: 50,
  drawing: null,
  marquee: null,
  readOnly: false,
});

/** The view less what no longer exists in `doc` or is hidden (selected, hovered, the picked vertex); the same object when nothing went. */
export function pruneView(view: ViewState, doc: DocState): ViewState {
  let selected = view.selected;
  const gone = (id: string) => !getAnnotation(doc, id) || view.hidden.has(id);
  if ([...selected].some(gone)) selected = new Set([...selected].filter((id) => !gone(id)));
  const hovered = view.hovered && gone(view.hovered) ? null : view.hovered;
  const selectedVertex = view.selectedVertex && !vertexExists(doc, view.selectedVertex) ? null : view.selectedVertex;
  if (selected === view.selected && hovered === view.hovered && selectedVertex === view.selectedVertex) return view;
  return { ...view, selected, hovered, selectedVertex };
}

function vertexExists(doc: DocState, ref: VertexRef): boolean {
  const a = getAnnotation(doc, ref.id);
  if (a?.type === 'skeleton') return ref.ring === 0 && (a.keypoints[ref.index]?.v ?? 0) !== 0;
  if (!a || (a.type !== 'polygon' && a.type !== 'polyline')) return false;
  const ring = ref.ring === 0 ? a.points : a.type === 'polygon' ? a.holes?.[ref.ring - 1] : undefined;
  return !!ring && ref.index < ring.length;
}
