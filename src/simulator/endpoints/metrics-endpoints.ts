import { METRIC_COUNT } from '../../contract/metrics.js';
import { formatDay, spanDays } from '../../util/utc-date.js';
import { resolveDate, resolveRange } from '../data/dates.js';
import { editorLanguageRecords, type EditorLanguageRecord } from '../data/editor-language.js';
import { decodeCursor, fingerprint, pageOf } from '../http/pagination.js';
import { pageSizeOf, readQuery } from '../http/params.js';
import { identityField, metricsObject } from '../http/render.js';
import { API, type Route } from '../http/route.js';
import type { EndpointContext } from '../state.js';

const DAU_PAGES = { default: 100, max: 250 };
const USER_ACTIVITY_PAGES = { default: 50, max: 100 };
const EDITOR_LANGUAGE_PAGES = { default: 50, max: 100 };

function metricsRange(ctx: EndpointContext, allowed: readonly string[]) {
  const q = readQuery(ctx.query, allowed);
  const range = resolveRange(q.start_date, q.end_date, { today: ctx.state.today(), allowToday: false, lookback: true });
  return { q, range };
}

function rangeMetadata(ctx: EndpointContext, range: { start: number; end: number }) {
  return {
    effective_start_date: formatDay(range.start),
    effective_end_date: formatDay(range.end),
    generated_at: ctx.state.generatedAt(),
  };
}

/** GET /analytics/v0/dau-count */
export function dauCount(ctx: EndpointContext) {
  const { range } = metricsRange(ctx, ['start_date', 'end_date']);
  const counts = [];
  for (let d = range.start; d <= range.end; d++)
    counts.push({ date: formatDay(d), user_count: ctx.state.published(d).ids.length });
  return {
    daily_active_user_counts: counts,
    metadata: { ...rangeMetadata(ctx, range), total_days: spanDays(range.start, range.end) },
  };
}

/** GET /analytics/v0/dau */
export function dau(ctx: EndpointContext) {
  const q = readQuery(ctx.query, ['date', 'cursor', 'page_size']);
  const day = resolveDate(q.date, ctx.state.today());
  const pageSize = pageSizeOf(q.page_size, DAU_PAGES, 'query');
  const fp = fingerprint(['dau', day]);
  const ids = ctx.state.published(day).ids;
  const { from, to, pagination } = pageOf(fp, decodeCursor(q.cursor, fp), pageSize, ids.length);
  const users = Array.from(ids.subarray(from, to), (i) => identityField(ctx.state.org, i));
  return {
    users,
    pagination,
    metadata: {
      effective_date: formatDay(day),
      generated_at: ctx.state.generatedAt(),
      returned_user_count: users.length,
    },
  };
}

/** GET /analytics/v0/daily-usage: days without activity are omitted. */
export function dailyUsage(ctx: EndpointContext) {
  const { range } = metricsRange(ctx, ['start_date', 'end_date']);
  const rows = [];
  for (let d = range.start; d <= range.end; d++) {
    const data = ctx.state.published(d);
    if (data.ids.length === 0) continue;
    const sums = new Float64Array(METRIC_COUNT);
    for (let k = 0; k < data.metrics.length; k++) sums[k % METRIC_COUNT]! += data.metrics[k]!;
    rows.push({ date: formatDay(d), metrics: metricsObject(sums) });
  }
  return { daily_usage: rows, metadata: { ...rangeMetadata(ctx, range), total_days: rows.length } };
}

interface ActivityTotals {
  owners: number[];
  activeDays: Int32Array;
  sums: Float64Array;
}

/** GET /analytics/v0/user-activity: per identity, summed over the range; identities without activity are omitted. */
export function userActivity(ctx: EndpointContext) {
  const { q, range } = metricsRange(ctx, ['start_date', 'end_date', 'cursor', 'page_size']);
  const pageSize = pageSizeOf(q.page_size, USER_ACTIVITY_PAGES, 'query');
  const fp = fingerprint(['user-activity', range.start, range.end]);
  const offset = decodeCursor(q.cursor, fp);
  const totals = ctx.state.results.get<ActivityTotals>(ctx.state.resultKey(fp), () => {
    const n = ctx.state.org.identities.length;
    const activeDays = new Int32Array(n);
    const sums = new Float64Array(n * METRIC_COUNT);
    for (let d = range.start; d <= range.end; d++) {
      const data = ctx.state.published(d);
      data.ids.forEach((i, k) => {
        activeDays[i]! += 1;
        for (let f = 0; f < METRIC_COUNT; f++) sums[i * METRIC_COUNT + f]! += data.metrics[k * METRIC_COUNT + f]!;
      });
    }
    const owners: number[] = [];
    activeDays.forEach((days, i) => days > 0 && owners.push(i));
    return { owners, activeDays, sums };
  });
  const { from, to, pagination } = pageOf(fp, offset, pageSize, totals.owners.length);
  const users = totals.owners.slice(from, to).map((i) => ({
    ...identityField(ctx.state.org, i),
    active_days: totals.activeDays[i]!,
    metrics: metricsObject(totals.sums, i * METRIC_COUNT),
  }));
  return {
    users,
    pagination,
    metadata: {
      ...rangeMetadata(ctx, range),
      total_days: spanDays(range.start, range.end),
      returned_user_count: users.length,
    },
  };
}

/** GET /analytics/v0/daily-user-activity-by-editor-language */
export function editorLanguage(ctx: EndpointContext) {
  const q = readQuery(ctx.query, ['date', 'cursor', 'page_size']);
  const day = resolveDate(q.date, ctx.state.today());
  const pageSize = pageSizeOf(q.page_size, EDITOR_LANGUAGE_PAGES, 'query');
  const fp = fingerprint(['editor-language', day]);
  const offset = decodeCursor(q.cursor, fp);
  const all = ctx.state.results.get<Array<EditorLanguageRecord & { owner: number }>>(ctx.state.resultKey(fp), () => {
    const data = ctx.state.published(day);
    return Array.from(data.ids).flatMap((owner, k) =>
      editorLanguageRecords(
        ctx.state.org,
        owner,
        day,
        data.metrics.subarray(k * METRIC_COUNT, (k + 1) * METRIC_COUNT),
      ).map((r) => ({ ...r, owner })),
    );
  });
  const { from, to, pagination } = pageOf(fp, offset, pageSize, all.length);
  const records = all.slice(from, to).map((r) => ({
    ...identityField(ctx.state.org, r.owner),
    language: r.language,
    editor: r.editor,
    metrics: metricsObject(r.metrics),
  }));
  return {
    records,
    pagination,
    metadata: {
      effective_date: formatDay(day),
      generated_at: ctx.state.generatedAt(),
      returned_record_count: records.length,
    },
  };
}

const read = { method: 'GET', scope: 'read', group: 'general' } as const;
export const routes: Route[] = [
  { path: `${API}dau-count`, ...read, handle: dauCount },
  { path: `${API}dau`, ...read, pages: DAU_PAGES, handle: dau },
  { path: `${API}daily-usage`, ...read, handle: dailyUsage },
  { path: `${API}user-activity`, ...read, pages: USER_ACTIVITY_PAGES, handle: userActivity },
  {
    path: `${API}daily-user-activity-by-editor-language`,
    ...read,
    pages: EDITOR_LANGUAGE_PAGES,
    handle: editorLanguage,
  },
];
