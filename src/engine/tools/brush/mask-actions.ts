// The mask commands of the selection's menus: Convert to polygons, Convert to mask, Fill holes,
// Remove islands smaller than N px. Each runs the wasm kernels the app plugged in on every
// selected shape it applies to, then changes the document with commands (`convert`,
// `set-mask`, `delete`), all in one batch: one undo step.
import type { CommandName, CommandPayload, CommandResult } from '../../commands';
import { countsToString, rleArea, rleBBox } from '../../model/rle';
import type { EditorAnnotation, PolygonAnnotation, Rle, SegmentationAnnotation } from '../../model/types';
import type { ToolApi } from '../types';
import type { MaskOps } from './types';

export type MaskAction =
  /** `tolerance`: the kernels' MASK_POLYGON_TOLERANCE unless the user chose another. */
  | { readonly kind: 'to-polygons'; readonly tolerance: number }
  | { readonly kind: 'to-mask' }
  | { readonly kind: 'fill-holes' }
  | { readonly kind: 'remove-islands'; readonly minArea: number };

const LABELS: Record<MaskAction['kind'], string> = {
  'to-polygons': 'Convert to polygons',
  'to-mask': 'Convert to mask',
  'fill-holes': 'Fill holes',
  'remove-islands': 'Remove islands',
};

/** True when `action` can change `a`: the mask actions take masks, Convert to mask polygons. */
export function maskActionApplies(kind: MaskAction['kind'], a: EditorAnnotation | undefined): boolean {
  if (!a) return false;
  return kind === 'to-mask' ? a.type === 'polygon' : a.type === 'segmentation';
}

/** What runMaskAction needs of the editor. */
export interface MaskActionHost {
  readonly ops: MaskOps | null;
  /** [height, width] of a new mask. */
  readonly imageSize: { width: number; height: number } | null;
  get(id: string): EditorAnnotation | undefined;
  newId(): string;
  execute<N extends CommandName>(name: N, payload: CommandPayload<N>): CommandResult<N>;
  batch<T>(label: string, fn: () => T): T;
}

/**
 * The mask commands as the editor offers them (`editor.masks`): the wasm kernels the app plugs in
 * (`setOps`; the brush and the eraser use them too), and `run` on the selection.
 */
export class MaskCommands {
  private kernels: MaskOps | null = null;

  constructor(
    private readonly api: Pick<ToolApi, 'get' | 'newId' | 'execute' | 'imageSize' | 'setSelection'>,
    private readonly batch: MaskActionHost['batch'],
    private readonly selected: () => string[],
  ) {}

  /** The wasm mask kernels (src/kernels); without them the brush, the eraser and run() do nothing. */
  setOps(ops: MaskOps | null): void {
    this.kernels = ops;
  }

  get ops(): MaskOps | null {
    return this.kernels;
  }

  /** Runs a mask command (Convert to polygons / to mask, Fill holes, Remove islands) on `ids` (the selection), one undo step; selects what it made. */
  run(action: MaskAction, ids: readonly string[] = this.selected()): string[] {
    const { api } = this;
    const host: MaskActionHost = { ops: this.kernels, imageSize: api.imageSize(), get: api.get, newId: api.newId, execute: api.execute, batch: this.batch };
    const made = runMaskAction(host, action, ids);
    if (made.length) api.setSelection(made);
    return made;
  }
}

/**
 * Runs `action` on the shapes of `ids` it applies to, as one undo step. Returns the ids of the
 * shapes made or changed (the new selection); shapes left empty (a mask of islands only) go.
 */
export function runMaskAction(host: MaskActionHost, action: MaskAction, ids: readonly string[]): string[] {
  const ops = host.ops;
  if (!ops) throw new Error('The mask kernels are not loaded (editor.masks.setOps)');
  const targets = ids.map((id) => host.get(id)).filter((a) => maskActionApplies(action.kind, a)) as EditorAnnotation[];
  if (!targets.length) return [];
  return host.batch(LABELS[action.kind], () => targets.flatMap((a) => applyOne(host, ops, action, a)));
}

function applyOne(host: MaskActionHost, ops: MaskOps, action: MaskAction, a: EditorAnnotation): string[] {
  switch (action.kind) {
    case 'to-polygons': {
      const mask = a as SegmentationAnnotation;
      const into: PolygonAnnotation[] = ops
        .maskToPolygons(mask.rle, { tolerance: action.tolerance })
        .filter((p) => p.path.length >= 3)
        .map((p) => ({ id: host.newId(), type: 'polygon', class: a.class, attributes: a.attributes ?? [], points: p.path, ...(p.holes.length ? { holes: p.holes } : {}) }));
      if (!into.length) return [];
      host.execute('convert', { id: a.id, into });
      return into.map((p) => p.id);
    }
    case 'to-mask': {
      const poly = a as PolygonAnnotation;
      const size = host.imageSize;
      if (!size) return [];
      const counts = Array.from(ops.polygonsToRle([{ path: poly.points, holes: poly.holes ?? [] }], size.height, size.width));
      const rle: Rle = { size: [size.height, size.width], counts };
      if (rleArea(rle) === 0) return [];
      const mask: SegmentationAnnotation = { id: host.newId(), type: 'segmentation', class: a.class, attributes: a.attributes ?? [], rle, ...rleBBox(rle) };
      host.execute('convert', { id: a.id, into: [mask] });
      return [mask.id];
    }
    case 'fill-holes':
    case 'remove-islands': {
      const mask = a as SegmentationAnnotation;
      const counts = Array.from(action.kind === 'fill-holes' ? ops.fillHoles(mask.rle) : ops.removeIslands(mask.rle, action.minArea));
      const rle: Rle = { size: mask.rle.size, counts };
      if (rleArea(rle) === 0) {
        host.execute('delete', { ids: [a.id] });
        return [];
      }
      if (rleArea(rle) === rleArea(mask.rle)) return [a.id]; // nothing to fill or remove
      host.execute('set-mask', { id: a.id, rle: typeof mask.rle.counts === 'string' ? { size: rle.size, counts: countsToString(counts) } : rle });
      return [a.id];
    }
  }
}
