// The contract between the editor and its tools. Tools are state machines: they receive
// pointer/key events already in image coordinates (plus the screen point and the zoom scale,
// for thresholds and hit radii) and act through ToolApi.
import type { CommandName, CommandPayload, CommandResult } from '../commands';
import type { DocState } from '../model/document';
import type { Bounds } from '../model/geometry';
import type { EditorAnnotation, Rect, SkeletonDefinition, VertexRef } from '../model/types';
import type { DrawingPreview, ToolId, ViewState } from '../view';
import type { EditorEvent } from '../events';
import type { ProposalAccepted, Segmenter } from './auto/types';
import type { MaskOps } from './brush/types';

export interface Modifiers {
  readonly shiftKey?: boolean;
  readonly altKey?: boolean;
  readonly ctrlKey?: boolean;
  readonly metaKey?: boolean;
}

export interface ToolPointerEvent extends Modifiers {
  /** Image coordinates. */
  readonly x: number;
  readonly y: number;
  /** Screen (canvas CSS pixel) coordinates, for pixel thresholds. */
  readonly sx: number;
  readonly sy: number;
  /** 0 primary, 1 middle, 2 secondary. */
  readonly button: number;
  /** Current zoom (screen px per image px). */
  readonly scale: number;
}

export interface ToolKeyEvent extends Modifiers {
  readonly key: string;
}

export interface ToolApi {
  doc(): DocState;
  get(id: string): EditorAnnotation | undefined;
  view(): ViewState;
  execute<N extends CommandName>(name: N, payload: CommandPayload<N>): CommandResult<N>;
  /** Opens a history gesture: commands until commit() become one undo entry. */
  begin(label: string): void;
  relabel(label: string): void;
  commit(): void;
  /** Rolls the open gesture back and records nothing. */
  rollback(): void;
  setSelection(ids: Iterable<string>): void;
  setSelectedVertex(ref: VertexRef | null): void;
  setHovered(id: string | null): void;
  setDrawing(d: DrawingPreview | null): void;
  setMarquee(r: Rect | null): void;
  /** Topmost visible annotation hit at an image point, or null. */
  hitTest(x: number, y: number, tol: number): string | null;
  hitTestAll(x: number, y: number, tol: number): string[];
  /** Visible annotations whose bounds lie inside the rectangle. */
  queryInside(b: Bounds): string[];
  emit(e: EditorEvent): void;
  newId(): string;
  /** Clamps an image point to the image, when its size is known. */
  clampToImage(x: number, y: number): [number, number];
  panBy(dx: number, dy: number): void;
  /** The segmentation backend the app plugged in (editor.auto.setSegmenter), or null. */
  segmenter(): Segmenter | null;
  /** The mask kernels the app plugged in (editor.masks.setOps), or null. */
  maskOps(): MaskOps | null;
  /** The skeleton of a class (editor.skeletons.set), or null when it is not a skeleton class. */
  skeletonOf(className: string): SkeletonDefinition | null;
  /** The image's size, when known (a new mask covers it). */
  imageSize(): { width: number; height: number } | null;
  /** Auto-Annotate's mask was accepted: the app makes it an annotation (editor.auto.onAccepted). */
  proposalAccepted(e: ProposalAccepted): void;
}

export interface Tool {
  readonly id: ToolId;
  onPointerDown(e: ToolPointerEvent): void;
  onPointerMove(e: ToolPointerEvent): void;
  onPointerUp(e: ToolPointerEvent): void;
  onDoubleClick(e: ToolPointerEvent): void;
  /** Returns true when the key was handled (then the editor does nothing more with it). */
  onKeyDown(e: ToolKeyEvent): boolean;
  /** Abandons anything in progress (Escape, tool switch, load). */
  cancel(): void;
  /** True while drawing or dragging. */
  isBusy(): boolean;
}

/** Hit radius in image pixels: 6 screen px, never below half an image pixel. */
export const hitRadius = (scale: number) => Math.max(0.5, 6 / scale);
