import { getChangelog } from './get-changelog.js';

/** The changelog toolset's tools, in the order tools/list shows them. */
export const CHANGELOG_TOOLS = [getChangelog];
