import { getChangelog } from './get-changelog.js';
import type { ToolDef } from '../types.js';

/** The changelog toolset's tools, in the order tools/list shows them. */
export const CHANGELOG_TOOLS: readonly ToolDef[] = [getChangelog];
