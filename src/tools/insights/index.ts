import { findInactivePeople } from './find-inactive-people.js';
import { findAnomaliesTool } from './find-anomalies.js';
import { getAdoption } from './get-adoption.js';
import type { ToolDef } from '../types.js';

/** The insights toolset's tools, in the order tools/list shows them. */
export const INSIGHTS_TOOLS: readonly ToolDef[] = [findInactivePeople, findAnomaliesTool, getAdoption];
