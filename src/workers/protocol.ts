// The render worker's typed protocol (comlink). The main thread posts only small, flat
// messages: scene diffs packed into typed arrays (transferred, not copied), the view state
// (a few id lists), and the camera. Geometry is built in the worker.
import type { CameraState, Rect } from '../engine';

export const TYPE_CODES = { box: 0, polygon: 1, polyline: 2, keypoint: 3, segmentation: 4, skeleton: 5 } as const;

/**
 * A scene diff (SceneTracker.pull()) packed for transfer. Per upsert i: ids[i], z[i], types[i],
 * colors[i] (0xRRGGBB of the class), rect[4i..4i+3] (box / mask bbox x, y, w, h; keypoint x, y),
 * ringCounts[i] rings whose point counts follow in ringLens, coordinates in coords (x, y pairs).
 * Masks carry their RLE in `masks` (index into the upserts). A skeleton's points are its one
 * ring (every point, in its class's order), their v and its class's edges in `skeletons`.
 */
export interface PackedScene {
  reset: boolean;
  removed: string[];
  ids: string[];
  z: Float64Array;
  types: Uint8Array;
  colors: Uint32Array;
  rect: Float32Array;
  ringCounts: Uint32Array;
  ringLens: Uint32Array;
  coords: Float32Array;
  /** Class name of upsert i: names[nameIdx[i]] (each name once per part). */
  names: string[];
  nameIdx: Uint16Array;
  masks: { index: number; size: [number, number]; counts: number[] | Uint32Array | string }[];
  /** Per skeleton upsert: each point's v (0 not labelled, 1 occluded, 2 visible) and its class's edges as index pairs. */
  skeletons?: { index: number; v: number[]; edges: number[] }[];
  /** Upserts drawn dashed, their score in their label (a model's pending predictions, issue 34). */
  dashed?: number[];
}

/** The part of the engine's ViewState the renderer draws. */
export interface RenderView {
  selected: string[];
  hidden: string[];
  hovered: string | null;
  /** 0-100: fill transparency (selected shapes use 0x1A, the hovered one 90% transparency). */
  transparency: number;
  /** In-progress shape in image coordinates (already flattened), with its class colour. */
  drawing: { closed: boolean; points: number[]; color: number } | null;
  marquee: Rect | null;
  /** Auto-Annotate's prompt and proposed mask (absent: none). */
  proposal?: RenderProposal | null;
}

/** Auto-Annotate's preview, flattened: the mask's rings, the prompt's points and its box. */
export interface RenderProposal {
  /** x, y pairs of every ring of every polygon, in order. */
  coords: number[];
  /** Points per ring. */
  ringLens: number[];
  /** Rings per polygon (the first of each is its outer path, the others its holes). */
  polyRings: number[];
  /** x, y, positive (1) or negative (0) per point. */
  points: number[];
  box: Rect | null;
}

/**
 * How the canvas is drawn, whatever the document: the annotator's display settings. They never
 * change the stored image or annotations.
 */
export interface RenderDisplay {
  /** Class names at shapes (only the hovered and selected ones where shapes are dense). */
  labels: boolean;
  /** Width of outlines and polylines in CSS px (1 thin, 2 normal, 3 thick). */
  outlineWidth: number;
  /** Image adjustments: brightness and contrast as factors (1: unchanged), gamma (1: unchanged; above 1 brightens mid-tones). */
  brightness: number;
  contrast: number;
  gamma: number;
}

/**
 * An issue pinned on the image (issue 29), in image pixels: a point (x, y), or a region with w and
 * h (its pin at the top-left corner). `focused`: the one chosen in the issues panel, or being written.
 */
export interface RenderIssue {
  x: number;
  y: number;
  w?: number;
  h?: number;
  status: 'open' | 'resolved';
  focused: boolean;
}

export const DEFAULT_DISPLAY: RenderDisplay = { labels: true, outlineWidth: 2, brightness: 1, contrast: 1, gamma: 1 };

/** Where the image comes from. */
export interface TileLevel {
  level: number;
  cols: number;
  rows: number;
  urls: string[];
}

export type ImageSourceMsg =
  | { kind: 'bitmap'; bitmap: ImageBitmap }
  | { kind: 'blob'; blob: Blob }
  | { kind: 'url'; url: string }
  /** A server-made tile pyramid (large images): level L is the image at 1/2^L, urls row by row. */
  | { kind: 'tiles'; width: number; height: number; tileSize: number; levels: TileLevel[] }
  /** A generated test pattern of any size (benchmarks; no pixels held anywhere). */
  | { kind: 'pattern'; width: number; height: number }
  | { kind: 'none'; width: number; height: number };

export interface RendererOptions {
  /** CSS pixel size of the canvas and the device pixel ratio. */
  width: number;
  height: number;
  dpr: number;
  /** Tile edge for large images (512 or 1024). */
  tileSize?: number;
  /** LRU bound on cached tiles. */
  maxTiles?: number;
  /** Cap on the single-texture size (default 4096; the GPU's MAX_TEXTURE_SIZE also applies). */
  maxTextureSize?: number;
  /** Wasm kernels URL (mask decoding); default the bundled asset. */
  kernelsUrl?: string;
  /** Background outside the image. */
  background?: [number, number, number];
  /**
   * Zoomed-out cells drawn from impostor textures (impostors.ts). Default false: on SwiftShader they
   * cost more CPU per frame than drawing the dots directly (docs/performance/render.md, issue 35).
   */
  impostors?: boolean;
  /** A level's cells laid out again in one run of its buffers once the scene is quiet (compaction.ts). Default true; false for comparisons. */
  compaction?: boolean;
  /**
   * Issue 35: at rest and while panning, the masks and shapes drawn once into a texture and
   * composited in the image's pass (fused.ts). Default true (off with impostors); false for comparisons.
   */
  fused?: boolean;
}

/** Benchmarks: per frame, the draw calls and the bytes uploaded to the GPU since the frame before. */
export interface FrameCounts {
  draws: number[];
  uploadBytes: number[];
}

export interface RenderStats {
  shapes: number;
  masks: number;
  chunks: number;
  /** Impostors drawn (again) since the renderer started (impostors.ts); 0 when they are off. */
  impostorRenders: number;
  /** Levels laid out again in one run of their buffers (compaction.ts). */
  compactions: number;
  /** The fused path (fused.ts): textures of the shapes drawn, and frames composited from one. */
  fusedRenders: number;
  fusedFrames: number;
  /** Of those, frames of a zoom gesture that showed the texture scaled (drawn sharp once the zoom settles). */
  fusedScaledFrames: number;
  /** Of the textures drawn, those that copied what they share with the one before and drew the rest (a pan past the margin). */
  fusedScrolls: number;
  /** Of the textures drawn, those drawn ahead of a pan between frames (fused.ts, ahead()), and of these the ones a frame had to finish (the view reached them first). */
  fusedAhead: number;
  fusedAheadLate: number;
  /** Draw calls of the shapes' passes (fills, dots, compact polygons, outlines) in the last frame that drew them (a frame from the fused texture draws none). */
  shapeDraws: number;
  /** Cells left out of the last frame (outside the viewport). */
  culledChunks: number;
  fillVertices: number;
  lineVertices: number;
  tilesCached: number;
  tilesLoading: number;
  tileLevel: number;
  frames: number;
  /** CPU time of the last frame's draw calls in the renderer (ms). */
  lastFrameMs: number;
  /** Time spent building/uploading geometry for the last diff (ms). */
  lastSceneMs: number;
  /** Time spent building cell buffers (all levels of detail) since the renderer started. */
  buildMs: number;
  /** Total time spent decoding masks into textures (ms), and loading the kernels. */
  maskDecodeMs: number;
  kernelsLoadMs: number;
  /** Time to open the image source and upload the single texture (ms). */
  imageLoadMs: number;
  maxTextureSize: number;
  imageMode: 'none' | 'single' | 'tiled';
  /** Class-name labels in the last frame. */
  labels: number;
  /** Estimated GPU memory: vertex buffers, mask textures, tiles, state texture (bytes). */
  gpuBytes: number;
  /** JS heap of the realm the renderer runs in (performance.memory, Chromium), if available. */
  heapBytes: number | null;
  backend: 'worker' | 'main';
}

/** What the worker exposes through comlink. */
export interface RenderWorkerApi {
  init(canvas: OffscreenCanvas, options: RendererOptions): Promise<{ maxTextureSize: number }>;
  /**
   * Swaps the image: the canvas keeps its last frame (the previous image) until the new one can
   * be drawn, then resolves after the first frame with it, to when that frame was drawn (epoch
   * ms: performance.timeOrigin + performance.now() in the renderer's realm).
   */
  setImage(source: ImageSourceMsg, key?: string): Promise<number>;
  /**
   * Opens an image that will probably be shown next (a neighbour in the sequence) under `key`:
   * its texture and the reduced level or tiles of `camera`'s view are made ahead, so setImage with
   * that key swaps at once. The image replaced by a keyed setImage is kept the same way.
   */
  preload(key: string, source: ImageSourceMsg, camera: CameraState): void;
  /** Keeps the last frame on the canvas (another image's document is coming) until setImage swaps the image, or HOLD_MAX_MS. */
  hold(): void;
  /** New signed URLs for the open tile pyramid's tiles. */
  renewTiles(levels: TileLevel[]): void;
  applyScene(scene: PackedScene): void;
  setView(view: RenderView): void;
  setDisplay(display: RenderDisplay): void;
  /** The image's issue pins and regions (an overlay layer over the shapes). */
  setIssues(issues: RenderIssue[]): void;
  setCamera(camera: CameraState): void;
  resize(width: number, height: number, dpr: number): void;
  /** Resolves once nothing is pending (tiles, masks, geometry) and a frame has been drawn. */
  idle(): Promise<RenderStats>;
  stats(): RenderStats;
  dispose(): void;
}
