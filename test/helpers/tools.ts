import type { Simulator } from '../../src/simulator/index.js';
import { truth, truthAll } from './mcp.js';
import { YESTERDAY, addDays } from './sim.js';

/** The simulator's size behind the per-tool tests: large enough for sorting, limits and paging to matter. */
export const TOOL_TEST_USERS = 400;

/** The identity of an upstream record: its email, or its service-account name. */
export const idOf = (r: any) => r.user_email ?? r.service_account_name;

/** last_30_days resolved at the frozen test clock. */
export const R30 = { start_date: '2026-10-22', end_date: YESTERDAY };

/** Every cost-analytics data point for a request body, page by page, straight from the simulator. */
export async function costTruth(sim: Simulator, body: Record<string, unknown>): Promise<any[]> {
  const out: any[] = [];
  let cursor = '';
  do {
    const page = await truth(sim, 'cost-analytics', {}, { ...body, page_size: 1000, ...(cursor ? { cursor } : {}) });
    out.push(...page.data_points);
    cursor = page.pagination.has_more ? page.pagination.next_cursor : '';
  } while (cursor);
  return out;
}

/** A decimal string as an exact count of millionths, for sums the test makes itself. */
export function micro(decimal: string): bigint {
  const [w, f = ''] = decimal.split('.');
  if (f.length > 6) throw new Error(`more than 6 decimals: ${decimal}`);
  const units = BigInt(w!.replace('-', '') + f.padEnd(6, '0').slice(0, 6));
  return w!.startsWith('-') ? -units : units;
}

/**
 * An identity's latest active day in a range, from the daily active lists read in full straight from the
 * simulator, newest day first; undefined when no list names it.
 */
export async function latestActive(
  h: { sim: Simulator },
  range: { start_date: string; end_date: string },
  id: string,
): Promise<string | undefined> {
  for (let day = range.end_date; day >= range.start_date; day = addDays(day, -1))
    if ((await truthAll(h.sim, 'dau', 'users', { date: day })).some((u) => idOf(u) === id)) return day;
  return undefined;
}
