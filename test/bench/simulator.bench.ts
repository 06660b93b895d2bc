import { performance } from 'node:perf_hooks';
import { startSimulator } from '../../src/simulator/index.js';

const YESTERDAY = '2026-11-20';
const START_90 = '2026-08-23';

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await fn();
  return [value, performance.now() - t0];
}

/** Latency of each endpoint against a 10,000-user organization, cold (nothing computed) and warm. */
export async function benchSimulator(print: (line: string) => void): Promise<void> {
  const [sim, startMs] = await timed(() =>
    startSimulator({ users: 10_000, now: '2026-11-21T10:00:00Z', rateLimit: false, token: 'bench' }),
  );
  print(`simulator, 10,000 users: generated and listening in ${startMs.toFixed(0)} ms`);
  const headers = { authorization: 'Bearer bench', 'content-type': 'application/json' };
  const get = (path: string) => fetch(new URL(`/analytics/v0/${path}`, sim.url), { headers }).then((r) => r.json());
  const post = (path: string, body: unknown) =>
    fetch(new URL(`/analytics/v0/${path}`, sim.url), { method: 'POST', headers, body: JSON.stringify(body) }).then(
      (r) => r.json(),
    );
  const range = `start_date=${START_90}&end_date=${YESTERDAY}`;
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['dau-count, 90 days', () => get(`dau-count?${range}`)],
    ['user-activity, 90 days, page 100', () => get(`user-activity?${range}&page_size=100`)],
    ['dau, yesterday, page 250', () => get('dau?page_size=250')],
    ['editor-language, yesterday, page 100', () => get('daily-user-activity-by-editor-language?page_size=100')],
    [
      'credit-usage by date+model, 90 days, page 500',
      () => get(`credit-usage-by-user?${range}&by_date=true&by_model=true&page_size=500`),
    ],
    [
      'cost by user, 90 days, page 1000',
      () =>
        post('cost-analytics', {
          start_date: START_90,
          end_date: YESTERDAY,
          group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'],
          page_size: 1000,
        }),
    ],
    [
      'cost by day×user×model, 90 days',
      () =>
        post('cost-analytics', {
          start_date: START_90,
          end_date: YESTERDAY,
          group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER', 'COST_ANALYTICS_GROUP_BY_RESOURCE'],
          granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY',
          page_size: 1000,
        }),
    ],
    ['get-user-budget-overrides, all', () => post('get-user-budget-overrides', {})],
  ];
  print('  request                                         cold ms   warm ms');
  for (const [name, run] of cases) {
    const [, cold] = await timed(run);
    const [, warm] = await timed(run);
    print(`  ${name.padEnd(46)} ${cold.toFixed(1).padStart(8)} ${warm.toFixed(1).padStart(9)}`);
  }
  const [pages, pageMs] = await timed(async () => {
    let cursor = '';
    let n = 0;
    do {
      const body = (await get(`user-activity?${range}&page_size=100${cursor ? `&cursor=${cursor}` : ''}`)) as {
        pagination: { has_more: boolean; next_cursor: string };
      };
      cursor = body.pagination.has_more ? body.pagination.next_cursor : '';
      n++;
    } while (cursor);
    return n;
  });
  print(
    `  all ${pages} pages of user-activity (90 days): ${pageMs.toFixed(0)} ms, ${(pageMs / pages).toFixed(1)} ms/page`,
  );
  print(`  RSS after the run: ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
  await sim.close();
}
