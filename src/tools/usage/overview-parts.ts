import { z } from 'zod';
import type { CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import type { EditorLanguage } from '../../upstream/endpoints/daily-user-activity-by-editor-language.js';
import type { UserActivity } from '../../upstream/endpoints/user-activity.js';
import { identityKey } from '../../upstream/listing/merge.js';
import { percentOf, sumDecimals } from '../../domain/numbers.js';
import { weekday } from '../../util/utc-date.js';
import type { DayRange } from '../../domain/dates.js';
import { identityOf, identityOut, sortRows } from '../shared/rows.js';

export const modelCostOut = z.object({
  model: z.string(),
  billed_amount_usd: z.string(),
  credits_consumed: z.string(),
  share_percent: z.number().nullable(),
});
export const topUserOut = z.object({
  ...identityOut,
  active_days: z.number().int(),
  total_messages: z.number().int(),
  total_modified_lines_of_code: z.number().int(),
});
export const editorsOut = z.object({
  date: z.string(),
  active_users: z.number().int(),
  by_editor: z.record(z.string(), z.number().int()).describe('a person can use several'),
});

/**
 * The upstream endpoint behind each figure of the overview: active_users' daily figures, its distinct
 * count, and so on; cost covers cost, cost_by_model and previous, credits included (cost analytics').
 */
export const OVERVIEW_SOURCES = {
  active_users: 'dau-count',
  active_users_distinct: 'user-activity',
  top_users: 'user-activity',
  cost: 'cost-analytics',
  editors: 'daily-user-activity-by-editor-language',
} as const;
/** Which upstream endpoint each figure (or part) of an answer comes from: one each. */
export const sourcesOut = z.record(z.string(), z.string()).describe('endpoint per part');

/** Billed USD and credits of a set of cost points, summed exactly. */
export function costSum(points: readonly CostPoint[]) {
  return {
    billed_amount_usd: sumDecimals(points.map((p) => p.cost_metrics.billed_amount_usd)),
    credits_consumed: sumDecimals(points.map((p) => p.cost_metrics.credits_consumed)),
  };
}

/** Cost by resource (model or compute), the most billed first, with its share of the total. */
export function costByModel(points: readonly CostPoint[]): Array<z.output<typeof modelCostOut>> {
  const total = costSum(points).billed_amount_usd;
  const byModel = new Map<string, CostPoint[]>();
  for (const p of points) {
    const name = p.group_by_values.resource_display_name ?? '(none)';
    byModel.set(name, [...(byModel.get(name) ?? []), p]);
  }
  const rows = [...byModel].map(([model, ps]) => {
    const sum = costSum(ps);
    return { model, ...sum, share_percent: percentOf(sum.billed_amount_usd, total) };
  });
  return sortRows(
    rows,
    (r) => r.billed_amount_usd,
    'desc',
    (r) => r.model,
  );
}

/** The most active identities by messages. */
export function topUsers(users: UserActivity['users'], n: number): Array<z.output<typeof topUserOut>> {
  return sortRows(
    users,
    (u) => u.metrics.total_messages,
    'desc',
    (u) => identityOf(u).user,
  )
    .slice(0, n)
    .map((u) => ({
      ...identityOf(u),
      active_days: u.active_days,
      total_messages: u.metrics.total_messages,
      total_modified_lines_of_code: u.metrics.total_modified_lines_of_code,
    }));
}

/** The range's last Monday-to-Friday day: a weekend day would understate adoption. */
export function lastWeekday(r: DayRange): number {
  for (let d = r.end; d >= r.start; d--) if (weekday(d) >= 1 && weekday(d) <= 5) return d;
  return r.end;
}

/** People per editor on one day, and how many were active: one person can use several editors. */
export function editorAdoption(records: EditorLanguage['records'], date: string): z.output<typeof editorsOut> {
  const people = new Map<string, Set<string>>();
  const everyone = new Set<string>();
  for (const r of records) {
    const key = identityKey(r);
    everyone.add(key);
    people.set(r.editor, (people.get(r.editor) ?? new Set()).add(key));
  }
  const by = [...people].sort((a, b) => b[1].size - a[1].size || (a[0] < b[0] ? -1 : 1));
  return { date, active_users: everyone.size, by_editor: Object.fromEntries(by.map(([e, s]) => [e, s.size])) };
}
