import { dayToMs, formatDay } from '../../util/utc-date.js';
import { MODELS } from '../data/catalog.js';
import { resolveRange } from '../data/dates.js';
import { decodeCursorState, fingerprint, pageOf } from '../http/pagination.js';
import { booleanOf, pageSizeOf, readQuery } from '../http/params.js';
import { identityField } from '../http/render.js';
import { API, type Route } from '../http/route.js';
import type { EndpointContext, SimState } from '../state.js';

/** credit-usage-by-user is refreshed about every 90 minutes. */
const PAGES = { default: 100, max: 500 };
export const CREDIT_REFRESH_MS = 90 * 60_000;

interface CreditRows {
  owner: number[];
  day: number[];
  model: number[];
  credits: number[];
}

/** The share of today's credits visible as of a refresh (numbered in 90-minute steps since the epoch). */
function todayShare(state: SimState, refresh: number): number {
  return Math.max(0, refresh * CREDIT_REFRESH_MS - dayToMs(state.today())) / 86_400_000;
}

/**
 * Rows in the API's order (identity, then date, then model). Dimensions not requested are summed away;
 * works identity by identity over a per-day position index, so no sort and no hash map is needed.
 */
function collect(
  state: SimState,
  start: number,
  end: number,
  byDate: boolean,
  byModel: boolean,
  refresh: number,
): CreditRows {
  const today = state.today();
  const share = todayShare(state, refresh);
  const n = state.org.identities.length;
  const days = [];
  for (let d = start; d <= end; d++) {
    const data = state.days.get(d);
    const position = new Int32Array(n).fill(-1);
    data.ids.forEach((owner, k) => (position[owner] = k));
    days.push({ data, position, scale: d === today ? share : 1 });
  }
  const rows: CreditRows = { owner: [], day: [], model: [], credits: [] };
  const perModel = new Float64Array(MODELS.length);
  const flush = (owner: number, day: number) => {
    const emit = (model: number, credits: number) => {
      if (credits <= 0) return;
      rows.owner.push(owner);
      rows.day.push(day);
      rows.model.push(model);
      rows.credits.push(credits);
    };
    let total = 0;
    for (let model = 0; model < perModel.length; model++) {
      if (byModel) emit(model, perModel[model]!);
      total += perModel[model]!;
      perModel[model] = 0;
    }
    if (!byModel) emit(-1, total);
  };
  for (let owner = 0; owner < n; owner++) {
    for (const { data, position, scale } of days) {
      const k = position[owner]!;
      if (k < 0) continue;
      for (let slot = 0; slot < 2; slot++) {
        const model = data.creditModels[k * 2 + slot]!;
        if (model >= 0)
          perModel[model]! +=
            scale === 1 ? data.credits[k * 2 + slot]! : Math.floor(data.credits[k * 2 + slot]! * scale);
      }
      if (byDate) flush(owner, data.day);
    }
    if (!byDate) flush(owner, -1);
  }
  return rows;
}

/** GET /analytics/v0/credit-usage-by-user */
export function creditUsage(ctx: EndpointContext) {
  const q = readQuery(ctx.query, ['start_date', 'end_date', 'by_date', 'by_model', 'cursor', 'page_size']);
  const byDate = booleanOf(q.by_date, 'by_date');
  const byModel = booleanOf(q.by_model, 'by_model');
  const state = ctx.state;
  const range = resolveRange(q.start_date, q.end_date, { today: state.today(), allowToday: true, lookback: false });
  const pageSize = pageSizeOf(q.page_size, PAGES, 'query');
  const fp = fingerprint(['credit-usage', range.start, range.end, byDate, byModel]);
  // Today's figures move with each refresh. A cursor keeps serving the refresh its first page came
  // from, so paging through a refresh never repeats or skips a record.
  const cursor = decodeCursorState(q.cursor, fp);
  const refresh = cursor.snapshot ?? Math.floor(state.clock.now() / CREDIT_REFRESH_MS);
  const rows = state.results.get(`${fp}@${refresh}`, () =>
    collect(state, range.start, range.end, byDate, byModel, refresh),
  );
  const { from, to, pagination } = pageOf(fp, cursor.offset, pageSize, rows.owner.length, refresh);
  const records = [];
  for (let r = from; r < to; r++) {
    records.push({
      ...identityField(state.org, rows.owner[r]!),
      credits_consumed: rows.credits[r]!,
      ...(byDate ? { date: formatDay(rows.day[r]!) } : {}),
      ...(byModel ? { model_name: MODELS[rows.model[r]!]!.name } : {}),
    });
  }
  return {
    records,
    pagination,
    metadata: {
      effective_start_date: formatDay(range.start),
      effective_end_date: formatDay(range.end),
      generated_at: state.generatedAt(),
      returned_record_count: records.length,
    },
  };
}

export const routes: Route[] = [
  {
    path: `${API}credit-usage-by-user`,
    method: 'GET',
    scope: 'read',
    group: 'credit-usage',
    pages: PAGES,
    handle: creditUsage,
  },
];
