import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTelemetry } from '../../src/runtime/telemetry.js';
import { instruments } from '../../src/telemetry/instruments.js';
import { syncProgressed } from '../../src/telemetry/sync-status.js';
import { parsePrometheus } from './prometheus-text.js';
import { dashboard, dashboardFamilies } from './dashboard-families.js';

describe('the Grafana dashboard (.ci/grafana-dashboard.json)', () => {
  it('reads only series that /metrics serves, once each instrument has recorded', async () => {
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    for (const panel of dashboard.panels) expect(panel.targets.length, panel.title).toBeGreaterThan(0);
    const telemetry = await startTelemetry({}, true);
    const server = createServer(telemetry.metrics!);
    try {
      telemetry.watch({ history: undefined, refreshHour: 3 });
      for (const instrument of Object.values(instruments()))
        if ('record' in instrument) instrument.record(1, {});
        else instrument.add(1, {});
      syncProgressed(1, 1, true);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const text = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).text();
      const served = new Set(parsePrometheus(text).map((s) => s.name.replace(/_(bucket|count|sum)$/, '')));
      // The store's gauges need a filled store: warm-metrics.test.ts sees the store's, by their OTLP names.
      const missing = dashboardFamilies().filter(
        (name) => !served.has(name) && !/^org_analytics_(store|alerts)_/.test(name),
      );
      expect(missing).toEqual([]);
    } finally {
      server.close();
      await telemetry.shutdown();
    }
  });
});
