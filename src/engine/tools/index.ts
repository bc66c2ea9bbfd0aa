// Tool registry: one folder per tool.
import { AutoTool } from './auto';
import { BoxTool } from './box';
import { BrushSettings, BrushTool } from './brush';
import { KeypointTool } from './keypoint';
import { PanTool } from './pan';
import { PolygonTool } from './polygon';
import { PolylineTool } from './polyline';
import { SelectTool } from './select';
import { SkeletonTool } from './skeleton';
import type { Tool, ToolApi } from './types';
import type { ToolId } from '../view';

export const TOOL_IDS: readonly ToolId[] = ['select', 'box', 'polygon', 'polyline', 'keypoint', 'pan', 'auto', 'brush', 'eraser', 'skeleton'];

export function createTools(api: ToolApi): Record<ToolId, Tool> {
  const brush = new BrushSettings(); // one size for the brush and the eraser
  return {
    select: new SelectTool(api),
    box: new BoxTool(api),
    polygon: new PolygonTool(api),
    polyline: new PolylineTool(api),
    keypoint: new KeypointTool(api),
    pan: new PanTool(api),
    auto: new AutoTool(api),
    brush: new BrushTool('brush', api, brush),
    eraser: new BrushTool('eraser', api, brush),
    skeleton: new SkeletonTool(api),
  };
}

export type { Tool, ToolApi, ToolKeyEvent, ToolPointerEvent, Modifiers } from './types';
export { hitRadius } from './types';
export { AutoTool, MASK_DEBOUNCE_MS, insideProposal, type AutoPhase } from './auto';
export { SKELETON_OCCLUDE_KEY, SKELETON_SKIP_KEY, type SkeletonPreview } from './skeleton';
export { BRUSH_SIZE_DEFAULT, BRUSH_SIZE_MAX, BRUSH_SIZE_MIN, maskActionApplies, type BrushPreview, type MaskAction, type MaskOps } from './brush';
