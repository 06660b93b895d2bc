import type { Toolset } from '../config/options-tools.js';
import type { ToolDef } from './types.js';

/** Whether a tool is offered under these toolsets: each tool names its own (ToolDef.toolset, its folder). */
export const inToolsets = (tool: Pick<ToolDef, 'toolset'>, toolsets: readonly Toolset[]): boolean =>
  toolsets.includes(tool.toolset);
