/** One row of the budget view, from get_budget_status or get_budget_overrides, values as the answer gave them. */
export interface BudgetRow {
  user: string;
  kind: 'user' | 'service_account';
  status: string;
  used: string;
  limit: string;
  percent: number | null;
  projected: string;
  limitDay: string;
}

type Json = Record<string, unknown>;
const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

export function budgetRowsOf(answer: unknown): { rows: BudgetRow[]; note: string } {
  const body = (answer ?? {}) as Json;
  const rows = Array.isArray(body.rows) ? (body.rows as Json[]) : [];
  const mtd = body.month_to_date as Json | undefined;
  return {
    note: [mtd?.covers, body.projection].filter(Boolean).map(String).join(' '),
    rows: rows.map((r) => ({
      user: text(r.user),
      kind: r.kind === 'service_account' ? 'service_account' : 'user',
      status: text(r.status) || (r.limit === '' ? 'cleared' : 'override'),
      used: text(r.used),
      limit: r.limit === '' ? 'cleared' : text(r.limit),
      percent: typeof r.percent_used === 'number' ? r.percent_used : null,
      projected: text(r.projected),
      limitDay: text(r.limit_day),
    })),
  };
}

/** The set_budget_overrides entry for a new limit typed into the view ("" clears). */
export function overrideOf(row: BudgetRow, limit: string): Record<string, string | null> {
  const who = row.kind === 'service_account' ? 'service_account_name' : 'user_email';
  return { [who]: row.user, limit: limit.trim() === '' ? null : limit.trim() };
}
