import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWarmCommand } from '../../src/commands/warm.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startOtlpCollector, type OtlpCollector } from './otlp-collector.js';
import { dashboardFamilies } from './dashboard-families.js';

let sim: Simulator;
let collector: OtlpCollector;
const dir = mkdtempSync(join(tmpdir(), 'oam-warm-metrics-'));

beforeAll(async () => {
  sim = await startSimulator({ users: 20, rateLimit: false });
  collector = await startOtlpCollector();
});
afterAll(async () => {
  await collector.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a one-shot warm (the sync, with a store) with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it("exports its upstream requests and the store's gauges over OTLP before it exits", async () => {
    const started = Date.now();
    const args = ['--base-url', sim.url, '--api-token', sim.token, '--history', join(dir, 'history.sqlite')];
    const sync = ['--history-days', '3', '--history-months', '0', '--sync-share', '1'];
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      ANALYTICS_CACHE_DIR: 'none',
      ANALYTICS_LOG_LEVEL: 'error',
    };
    expect(await runWarmCommand([...args, ...sync], env, () => {})).toBe(0);

    // The last export, at exit: each metric's point as it stood then.
    const last = new Map<string, number>();
    const upstream = new Map<string, number>();
    for (const p of collector.points()) {
      last.set(p.metric, p.value);
      if (p.metric === 'org_analytics.upstream.requests') upstream.set(JSON.stringify(p.attributes), p.value);
    }
    const sent = sim.requests().filter((r) => r.path.startsWith('/analytics/v0/')).length;
    expect(sent).toBeGreaterThan(0);
    expect([...upstream.values()].reduce((a, b) => a + b, 0)).toBe(sent);
    expect(last.get('org_analytics.sync.blocks.planned')).toBeGreaterThan(0);
    expect(last.get('org_analytics.sync.blocks.done')).toBe(last.get('org_analytics.sync.blocks.planned'));
    expect(last.get('org_analytics.sync.last_success')! * 1000).toBeGreaterThanOrEqual(started - 1000);
    expect(last.get('org_analytics.store.blocks')).toBeGreaterThan(0);
    expect(last.get('org_analytics.store.lag')).toBe(0);
    expect(collector.resources()[0]!['service.name']).toBe('org-analytics-mcp');
    // The dashboard's store panels read these, by their Prometheus names.
    const store = dashboardFamilies().filter((name) => name.startsWith('org_analytics_store_'));
    expect(store.length).toBeGreaterThan(0);
    for (const name of store) expect([...last.keys()].map((m) => m.replaceAll('.', '_'))).toContain(name);
  });
});
