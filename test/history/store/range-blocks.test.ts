import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveNamedRange } from '../../../src/domain/dates.js';
import { RANGES } from '../../../src/history/store/range-blocks.js';
import { attachHistory, type RuntimeHistory } from '../../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { createLogger } from '../../../src/logger.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { harness, type Harness } from '../../helpers/mcp.js';
import { NOW } from '../../helpers/sim.js';

const DAY_MS = 86_400_000;
type Logged = ReturnType<Simulator['requests']>[number];
const params = (r: Logged) => ({ ...(r.query ?? {}), ...((r.body ?? {}) as Record<string, unknown>) });

/** A request for a range block (with months off, nothing else asks these shapes over a range). */
function isRange(r: Logged): boolean {
  const q = params(r);
  switch (r.path.split('/').pop()) {
    case 'user-activity':
      return q.start_date !== q.end_date;
    case 'credit-usage-by-user':
      return String(q.by_date) === 'false' && String(q.by_model) === 'false';
    case 'cost-analytics':
      return q.granularity === 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL';
    default:
      return false;
  }
}

describe('range blocks: fetched again only while their days are missing, replaced by the spans once they are in', () => {
  let sim: Simulator;
  let client: Harness['upstream'];
  let host: Harness;
  let dir: string;
  const stores: RuntimeHistory[] = [];
  const log = createLogger(
    'error',
    (t) => t,
    () => {},
  );
  const SETTINGS = { historyDays: 30, historyMonths: 0, syncShare: 1 };

  const open = async (name: string) => {
    const h = (await attachHistory(client, { history: join(dir, name), cacheDir: undefined, demo: false }, log))!;
    stores.push(h);
    return h;
  };
  /** One sync; `early`: stopped as soon as the range blocks are in. Returns the range requests it made. */
  const sync = async (history: RuntimeHistory, early = false) => {
    const before = sim.requests().length;
    const stop = new AbortController();
    const lines: string[] = [];
    const outcome = await syncOnce(client, history.source, SETTINGS, {
      signal: stop.signal,
      onProgress: (line) => {
        lines.push(line.text);
        if (early && line.answerable) stop.abort();
      },
    });
    expect(outcome.ran).toBe(true);
    return { ranges: sim.requests().slice(before).filter(isRange).length, lines };
  };
  const rangeBlocks = async (history: RuntimeHistory) =>
    (await history.source.store.db.selectFrom('history_blocks').select('dataset').execute()).filter((b) =>
      b.dataset.startsWith('range:'),
    ).length;

  beforeAll(async () => {
    sim = await startSimulator({ users: 20, now: NOW, rateLimit: false, token: 'rw' });
    host = await harness({ simulator: sim });
    client = host.upstream;
    dir = mkdtempSync(join(tmpdir(), 'range-blocks-'));
  });
  afterAll(async () => {
    for (const h of stores) await h.close();
    await host?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the windows within --history-days, fetches each once, and drops them for the spans of their days', async () => {
    const interrupted = await open('interrupted.sqlite');
    // 7 and 30 days of three datasets; 90 days lie beyond the 30 kept.
    const first = await sync(interrupted, true);
    expect(first.ranges).toBe(6);
    expect(first.lines.some((l) => /over the last 7 and 30 days/.test(l))).toBe(true);
    expect(await rangeBlocks(interrupted)).toBe(6);

    // The same day, the days still missing: the range blocks held are not fetched again; the days come, and the
    // spans summed from them replace the range blocks.
    expect((await sync(interrupted)).ranges).toBe(0);
    expect(await rangeBlocks(interrupted)).toBe(0);
    const spans = await interrupted.source.store.blocks('span:user-activity', 0, 1e7);
    const days = client.days();
    expect(spans.some((s) => s.start === days.published - 29 && s.end === days.published)).toBe(true);
  });

  it('after the daily refresh: fetched again where the days are still missing, not where only the newest are', async () => {
    const interrupted = await open('interrupted-again.sqlite');
    expect((await sync(interrupted, true)).ranges).toBe(6);
    // The store the first test completed.
    const complete = stores[0]!;
    sim.configure({ advance_ms: DAY_MS });
    // The range blocks expired with their newest day. Those whose days (but the newest) the stopped sync left
    // missing are fetched again, the 30 days of user activity among them; a window whose days it stored is not.
    const days = client.days();
    let lacking = 0;
    for (const dataset of RANGES)
      for (const name of ['last_7_days', 'last_30_days'] as const) {
        const w = resolveNamedRange(name, dataset.listing.dates.rules, days);
        const held = await interrupted.source.store.blocks(dataset.days, w.start, days.published - 1);
        if (held.filter((b) => b.start === b.end).length < Math.min(w.end, days.published - 1) - w.start + 1) lacking++;
      }
    const before = sim.requests().length;
    const again = await sync(interrupted, true);
    expect(again.ranges).toBe(lacking);
    const iso = (d: number) => new Date(d * DAY_MS).toISOString().slice(0, 10);
    const ua30 = sim
      .requests()
      .slice(before)
      .filter((r) => r.path.endsWith('/user-activity') && r.query.start_date === iso(days.published - 29));
    expect(ua30.map((r) => r.query.end_date)).toContain(iso(days.published));
    // A store that holds the days lacks only the newest: the sync fetches them, and sums the spans.
    expect((await sync(complete)).ranges).toBe(0);
    expect(await rangeBlocks(complete)).toBe(0);
    const spans = await complete.source.store.blocks('span:credits-by-date-model', 0, 1e7, client.now());
    expect(spans.some((s) => s.start === days.today - 29 && s.end === days.today)).toBe(true);
  });
});
