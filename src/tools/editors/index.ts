import { getEditorLanguageActivity } from './get-editor-language-activity.js';
import type { ToolDef } from '../types.js';

/** The editors toolset's tools, in the order tools/list shows them. */
export const EDITORS_TOOLS: readonly ToolDef[] = [getEditorLanguageActivity];
