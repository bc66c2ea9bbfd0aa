// Tool registry: one folder per tool.
import { AutoTool } from './auto';
import { BoxTool } from './box';
import { KeypointTool } from './keypoint';
import { PanTool } from './pan';
import { PolygonTool } from './polygon';
import { PolylineTool } from './polyline';
import { SelectTool } from './select';
import type { Tool, ToolApi } from './types';
import type { ToolId } from '../view';

export const TOOL_IDS: readonly ToolId[] = ['select', 'box', 'polygon', 'polyline', 'keypoint', 'pan', 'auto'];

export function createTools(api: ToolApi): Record<ToolId, Tool> {
  return {
    select: new SelectTool(api),
    box: new BoxTool(api),
    polygon: new PolygonTool(api),
    polyline: new PolylineTool(api),
    keypoint: new KeypointTool(api),
    pan: new PanTool(api),
    auto: new AutoTool(api),
  };
}

export type { Tool, ToolApi, ToolKeyEvent, ToolPointerEvent, Modifiers } from './types';
export { hitRadius } from './types';
export { AutoTool, MASK_DEBOUNCE_MS, insideProposal, type AutoPhase } from './auto';
