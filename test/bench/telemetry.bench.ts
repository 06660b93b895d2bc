import { readFileSync } from 'node:fs';
import { startSimulator } from '../../src/simulator/index.js';
import { CLI, startHttpBinary } from '../helpers/http-binary.js';
import { startOtlpCollector } from '../telemetry/otlp-collector.js';
import { goalLine } from './goal.js';
import { throughput } from './http-throughput.bench.js';

const ROUNDS = 7;
/** With metrics and traces on, at least this share of the calls per second with telemetry off. */
const GOAL = 0.9;

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * Issue 36: cached calls over HTTP with telemetry off (--no-metrics, no OTLP) and on (/metrics scraped every second,
 * metrics and every span exported over OTLP/HTTP to a collector in this process). OAM_BENCH_CLI: another build.
 */
export async function benchTelemetry(print: (line: string) => void): Promise<void> {
  const sim = await startSimulator({ users: 800, rateLimit: false, token: 'bench-telemetry' });
  const collector = await startOtlpCollector();
  const script = process.env.OAM_BENCH_CLI ?? CLI;
  const env = {
    PATH: process.env.PATH ?? '',
    ANALYTICS_API_TOKEN: sim.token,
    ANALYTICS_BASE_URL: sim.url,
    ANALYTICS_LOG_LEVEL: 'warn',
  };
  const args = ['--http', '--port', '0', '--cache-dir', 'none'];
  const off = await startHttpBinary([...args, '--no-metrics'], env, script);
  const on = await startHttpBinary(
    args,
    {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
      OTEL_BSP_SCHEDULE_DELAY: '1000',
    },
    script,
  );
  const metrics = new URL('/metrics', on.url);
  const scraper = setInterval(
    () =>
      void fetch(metrics).then(
        (r) => r.text(),
        () => '',
      ),
    1000,
  );
  try {
    const idle = { off: rssMb(off.child.pid!), on: rssMb(on.child.pid!) };
    const a: number[] = [];
    const b: number[] = [];
    const call = ['get_active_user_counts', { range: 'last_7_days' }, {}] as const;
    for (let round = 0; round < ROUNDS; round++) {
      a.push(await throughput(off.url, ...call));
      b.push(await throughput(on.url, ...call));
    }
    const ratio = median(a.map((x, i) => b[i]! / x));
    const spans = collector.spans().length;
    print(`telemetry, cached calls over HTTP, medians of ${ROUNDS} interleaved rounds (2025-06-18 stateless):`);
    print(`  off (--no-metrics, no OTLP)                  ${median(a).toFixed(0).padStart(6)} calls/s`);
    print(
      `  on (/metrics scraped each second, OTLP)      ${median(b).toFixed(0).padStart(6)} calls/s  (${goalLine(ratio, '>=', GOAL)}; ${spans} spans received)`,
    );
    print(
      `  RSS at start: off ${idle.off.toFixed(1)} MB, on ${idle.on.toFixed(1)} MB; after the rounds: off ${rssMb(off.child.pid!).toFixed(1)} MB, on ${rssMb(on.child.pid!).toFixed(1)} MB`,
    );
  } finally {
    clearInterval(scraper);
    off.child.kill();
    on.child.kill();
    await collector.close();
    await sim.close();
  }
}
