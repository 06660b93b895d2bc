import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestsTo } from '../../helpers/client.js';
import { harness, truthAll, type Harness } from '../../helpers/mcp.js';
import { addDays } from '../../helpers/sim.js';
import { R30, costTruth, idOf, micro } from '../../helpers/tools.js';

/** The daily active lists' and the editor/language records' largest pages, as the client reads them. */
const DAU_PAGE = 250;
const RECORDS_PAGE = 100;

// A large organization, so that the lists run to several pages and some people are only on the last ones.
describe.each(['credits', 'usd'] as const)('get_user_profile "uses" on a %s plan', (plan) => {
  let h: Harness;
  /** The daily active lists of the range, newest day first, in the API's order. */
  let lists: Array<{ date: string; ids: string[] }>;
  beforeAll(async () => {
    h = await harness({ sim: { users: 1500, plan } });
    lists = [];
    for (let date = R30.end_date; date >= R30.start_date; date = addDays(date, -1))
      lists.push({ date, ids: (await truthAll(h.sim, 'dau', 'users', { date })).map(idOf) });
  });
  afterAll(() => h.close());

  /** The latest of the lists read that names the identity, and where on it. */
  const latest = (id: string) => {
    const list = lists.find((l) => l.ids.includes(id))!;
    return { date: list.date, position: list.ids.indexOf(id) };
  };

  it('finds the latest active day from activity and reads all of its records, far down the lists', async () => {
    const end = lists[0]!;
    // Someone on the last page of the range's last day, and someone whose latest active day is earlier,
    // also beyond the first page of that day's list.
    const last = end.ids.at(-1)!;
    const earlier = lists
      .slice(1)
      .flatMap((l) => l.ids.filter((id, i) => i >= DAU_PAGE && latest(id).date === l.date))
      .at(-1)!;
    const account = end.ids.filter((id) => !id.includes('@')).at(-1)!;
    expect(latest(last).position).toBeGreaterThanOrEqual(DAU_PAGE);
    expect(earlier, 'someone last active before the range ends, beyond the first page').toBeDefined();
    expect(latest(earlier).date < end.date).toBe(true);
    for (const id of [last, earlier, account]) {
      const a = await h.call('get_user_profile', { user: id });
      expect(a.isError, a.text).toBe(false);
      const p = a.structured;
      expect(p.budget.plan).toBe(plan);
      const day = latest(id).date;
      expect(p.uses?.date, id).toBe(day);
      const records = await truthAll(h.sim, 'daily-user-activity-by-editor-language', 'records', { date: day });
      const own = records.filter((r) => idOf(r) === id);
      const positions = records.flatMap((r, i) => (idOf(r) === id ? [i] : []));
      if (id === last) expect(Math.min(...positions)).toBeGreaterThanOrEqual(RECORDS_PAGE);
      const messages = (k: 'editor' | 'language') => {
        const m: Record<string, number> = {};
        for (const r of own) m[r[k]] = (m[r[k]] ?? 0) + r.metrics.total_messages;
        return m;
      };
      expect(p.uses.editors, id).toEqual(messages('editor'));
      expect(p.uses.languages, id).toEqual(messages('language'));
      expect(a.text).toContain(`On ${day} (latest active day)`);
    }
  });

  it('fills "uses" for someone active in the range who has left since, with no cost to read', async () => {
    // Cost analytics names only current members: a filter by a former member's name finds nothing.
    const named = new Set(
      (await costTruth(h.sim, { ...R30, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] })).map(
        (p) => p.group_by_values.user_info?.user_email ?? p.group_by_values.user_info?.service_account_name,
      ),
    );
    const gone = lists.flatMap((l) => l.ids).find((id) => id.includes('@') && !named.has(id));
    expect(gone, 'a former member active in the range').toBeDefined();
    const cost = await costTruth(h.sim, { ...R30, filters: { user_emails: [gone] } });
    expect(cost.reduce((n, p) => n + micro(p.cost_metrics.billed_amount_usd), 0n)).toBe(0n);
    const p = (await h.call('get_user_profile', { user: gone! })).structured;
    expect(p.activity).not.toBeNull();
    expect(p.uses?.date).toBe(latest(gone!).date);
    expect(Object.keys(p.uses.editors).length).toBeGreaterThan(0);
  });

  it('fills "uses" for everyone active in the range that it is asked about', async () => {
    // Every identity on the last page of the range's last day's list.
    const end = lists[0]!;
    const ids = end.ids.slice(Math.floor((end.ids.length - 1) / DAU_PAGE) * DAU_PAGE).slice(-12);
    for (const id of ids) {
      const p = (await h.call('get_user_profile', { user: id, range: 'last_7_days' })).structured;
      expect(p.activity, id).not.toBeNull();
      expect(p.uses?.date, id).toBe(end.date);
    }
  });
});

describe('get_user_profile looks for the latest active day newest first, one day before many', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ sim: { users: 200 } });
  });
  afterAll(() => h.close());

  it("reads only the range's last day for someone active on it, and widens the search step by step", async () => {
    const onLast = (await truthAll(h.sim, 'dau', 'users', { date: R30.end_date })).map(idOf);
    const id = onLast[0]!;
    const before = requestsTo(h.sim, 'dau').length;
    const a = await h.call('get_user_profile', { user: id });
    expect(a.isError, a.text).toBe(false);
    expect(a.structured.uses?.date).toBe(R30.end_date);
    const asked = requestsTo(h.sim, 'dau').slice(before);
    expect(new Set(asked.map((r) => r.query.date))).toEqual(new Set([R30.end_date]));
  });
});
