import { getEditorLanguageActivity } from './get-editor-language-activity.js';

/** The editors toolset's tools, in the order tools/list shows them. */
export const EDITORS_TOOLS = [getEditorLanguageActivity];
