import { performance } from 'node:perf_hooks';
import { startSimulator } from '../../src/simulator/index.js';
import { AnalyticsClient } from '../../src/upstream/client.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';

/**
 * 50 pages of user-activity against the simulator with the documented limits enforced (60/min, burst
 * 20), at real speed. The floor is (50 − 20) × 1 s = 30 s plus the requests' own latency.
 */
export async function benchUpstream(print: (line: string) => void): Promise<void> {
  const sim = await startSimulator({ users: 6000, now: '2026-11-21T10:00:00Z', rateLimit: true, token: 'bench' });
  const client = new AnalyticsClient({ baseUrl: sim.url, token: 'bench', now: () => sim.clock.now() });
  // Latency of one warm request, measured on a separate simulator so the bench's own buckets stay full.
  const probe = await startSimulator({ users: 6000, now: '2026-11-21T10:00:00Z', rateLimit: false, token: 'bench' });
  const query = `${probe.url}/analytics/v0/user-activity?start_date=2026-08-23&end_date=2026-11-20&page_size=100`;
  await fetch(query, { headers: { authorization: 'Bearer bench' } }).then((r) => r.text());
  const l0 = performance.now();
  for (let i = 0; i < 10; i++) await fetch(query, { headers: { authorization: 'Bearer bench' } }).then((r) => r.text());
  const latencyMs = (performance.now() - l0) / 10;
  await probe.close();

  const t0 = performance.now();
  const answer = await client.list(userActivity, { range: 'last_90_days' }, { caps: { maxPages: 50 } });
  const elapsed = (performance.now() - t0) / 1000;
  const floor = 30 + (50 * latencyMs) / 1000;
  const limited = sim.requests().filter((r) => r.status === 429).length;
  print(`upstream client, 50 pages of user-activity with limits enforced (60/min, burst 20):`);
  print(
    `  ${answer.pages} pages in ${elapsed.toFixed(2)} s; floor 30 s + ${((50 * latencyMs) / 1000).toFixed(2)} s latency = ${floor.toFixed(2)} s; ${(((elapsed - floor) / floor) * 100).toFixed(1)}% above; 429s: ${limited}`,
  );

  const c0 = performance.now();
  const again = await client.list(userActivity, { range: 'last_90_days' }, { caps: { maxPages: 50 } });
  print(
    `  the same 50 pages again, from cache: ${(performance.now() - c0).toFixed(1)} ms (from_cache: ${again.freshness.from_cache})`,
  );
  await client.close();
  await sim.close();
}
