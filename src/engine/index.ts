// Public surface of the editor engine. The SPA uses the Editor facade; the renderer reads
// annotations by id from it and listens to subscribe() for the ids that changed.
export { Editor, PASTE_OFFSET, NUDGE, NUDGE_SHIFT, ReadOnlyError } from './editor';
export { nextTask } from './tasks';
export type { EditorChange, EditorOptions, KeyInput, LoadOptions, ScreenPointerInput, WheelInput } from './editor';
export type { EditorEvent } from './events';
export { SceneTracker, type SceneDiff, type SceneItem } from './scene';
export type { ViewState, ToolId, DrawingPreview } from './view';
export type { CameraState, Insets, Size } from './camera';
export { MIN_SCALE, MAX_SCALE, ZOOM_IN, ZOOM_OUT, PAN_STEP, FIT_MARGIN, NO_INSETS, screenToImage, imageToScreen } from './camera';
export type { ChangedIds } from './model/document';
export type {
  AnnotationType,
  BoxAnnotation,
  EditorAnnotation,
  EditorDocumentJSON,
  JsonValue,
  KeypointAnnotation,
  Point,
  PolygonAnnotation,
  PolylineAnnotation,
  Rect,
  Ring,
  Rle,
  SegmentationAnnotation,
  SkeletonAnnotation,
  SkeletonDefinition,
  SkeletonPoint,
  VertexRef,
} from './model/types';
export { MIN_BOX_SIZE, MIN_POLYGON_POINTS, MIN_POLYLINE_POINTS } from './model/types';
export { editorToStored, storedToEditor, parseStoredAnnotations, parseStoredAnnotationAt, validateEditorAnnotation } from './model/convert';
export { annotationBounds, hitAnnotation, type Bounds } from './model/geometry';
export * as rle from './model/rle';
export { commands, type CommandName, type CommandPayload, type CommandResult } from './commands';
export { hitRadius, TOOL_IDS, MASK_DEBOUNCE_MS, insideProposal, type AutoPhase } from './tools';
export type { AbortSignalLike, AutoPoint, AutoPreview, MaskPolygon, MaskProposal, ProposalAccepted, Segmenter, SegmentPrompt } from './tools/auto/types';
export { HISTORY_LIMIT } from './history';
export { KEY_CURSOR_STEP, KEY_CURSOR_STEP_FINE, KEY_CURSOR_STEP_SHIFT } from './keyboard-cursor';
export { isPending, pendingScore, predictionOf, type PredictionSource } from './model/prediction';
export type { Predictions } from './predictions';
export { SKELETON_OCCLUDE_KEY, SKELETON_SKIP_KEY, type SkeletonPreview } from './tools';
export { BRUSH_SIZE_DEFAULT, BRUSH_SIZE_MAX, BRUSH_SIZE_MIN, maskActionApplies, type BrushPreview, type MaskAction, type MaskOps } from './tools';
