import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '../../src/config/config.js';
import { startHttp } from '../../src/main.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { startTelemetry, type Telemetry } from '../../src/runtime/telemetry.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { HttpServing } from '../../src/transports/http.js';
import { startOtlpCollector, type OtlpCollector } from './otlp-collector.js';
import { parsePrometheus, total, type Sample } from './prometheus-text.js';
import { freePort } from '../helpers/redis-server.js';
import { statelessCall } from '../helpers/stateless-call.js';

const TRACE_HEADER = '0af7651916cd43dd8448eb211c80319c';
const TRACE_META = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = 'b7ad6b7169203331';

let sim: Simulator;
let collector: OtlpCollector;
let telemetry: Telemetry;
let runtime: Runtime;
let serving: HttpServing;
let base: string;

const call = async (tool: string, args: object, headers: Record<string, string> = {}) =>
  (await statelessCall(serving.url, tool, args, headers)).text();

const scrape = async (): Promise<{ res: Response; samples: Sample[] }> => {
  const res = await fetch(`${base}/metrics`);
  return { res, samples: parsePrometheus(await res.clone().text()) };
};

beforeAll(async () => {
  sim = await startSimulator({ users: 40, rateLimit: false, token: 'telemetry-sim-token' });
  collector = await startOtlpCollector();
  // Traces and metrics over OTLP/JSON to the collector, and /metrics over --http: every way out at once.
  telemetry = await startTelemetry(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'oam-under-test',
    },
    true,
  );
  const port = await freePort();
  const config = loadConfig(['--http', '--port', String(port), '--pii', 'pseudonymous'], {
    ANALYTICS_API_TOKEN: sim.token,
    ANALYTICS_BASE_URL: sim.url,
    ANALYTICS_CACHE_DIR: 'none',
    ANALYTICS_LOG_LEVEL: 'error',
  });
  runtime = await createRuntime(config);
  serving = await startHttp(runtime, undefined, telemetry);
  base = new URL(serving.url).origin;
});

afterAll(async () => {
  await serving?.close();
  await runtime?.close();
  await telemetry?.shutdown();
  await collector?.close();
  await sim?.close();
});

describe('telemetry of an --http server', () => {
  it('counts tool calls and upstream requests on /metrics as they were made', async () => {
    await call('get_active_user_counts', { range: 'last_7_days' }, { traceparent: `00-${TRACE_HEADER}-${PARENT}-01` });
    await call('get_active_user_counts', { range: 'last_7_days' });
    await call('get_user_activity', { range: 'last_7_days' });
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'malformed' });
    expect(await call('get_active_user_counts', { range: 'last_30_days' })).toContain('"isError":true');

    const { res, samples } = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const calls = 'org_analytics_tool_calls_total';
    expect(total(samples, calls, { gen_ai_tool_name: 'get_active_user_counts', outcome: 'ok' })).toBe(2);
    expect(total(samples, calls, { gen_ai_tool_name: 'get_user_activity', outcome: 'ok' })).toBe(1);
    expect(
      total(samples, calls, { gen_ai_tool_name: 'get_active_user_counts', outcome: 'error', error_type: 'protocol' }),
    ).toBe(1);
    expect(total(samples, 'mcp_server_operation_duration_count', { gen_ai_tool_name: 'get_active_user_counts' })).toBe(
      3,
    );

    // Every request the simulator saw is counted, by endpoint and status, and none that it did not see.
    const seen = sim.requests().filter((r) => r.path.startsWith('/analytics/v0/'));
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const r of seen) {
      const where = { endpoint: r.path.split('/').pop()!, status: String(r.status) };
      const sent = seen.filter((s) => s.path === r.path && s.status === r.status).length;
      expect(total(samples, 'org_analytics_upstream_requests_total', where), JSON.stringify(where)).toBe(sent);
    }
    expect(total(samples, 'org_analytics_upstream_requests_total')).toBe(seen.length);
    expect(total(samples, 'http_client_request_duration_count')).toBe(seen.length);
    // The second call of the same question was answered by the memory cache; the first missed it.
    expect(total(samples, 'org_analytics_cache_hits_total', { layer: 'memory' })).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'org_analytics_cache_misses_total', { layer: 'memory' })).toBe(seen.length);
    expect(total(samples, 'org_analytics_answers_total', { source: 'cache' })).toBe(1);
    expect(total(samples, 'org_analytics_answers_total', { source: 'live' })).toBe(2);
    expect(total(samples, 'org_analytics_limiter_wait_duration_count')).toBe(seen.length);
    expect(total(samples, 'process_memory_usage')).toBeGreaterThan(0);
  });

  it('puts no email, pseudonym, token or key in any label, even for a call about one person', async () => {
    const activity = JSON.parse(
      /data: (.*)/.exec(await call('get_user_activity', { range: 'last_30_days' }))?.[1] ?? '{}',
    ) as { result: { structuredContent: { rows: Array<{ user: string; kind: string }> } } };
    const pseudonym = activity.result.structuredContent.rows.find((r) => r.kind === 'user')!.user;
    expect(pseudonym).toMatch(/^user-[0-9a-f]{12}@/);
    expect(await call('get_user_profile', { user: pseudonym, range: 'last_30_days' })).not.toContain('"isError":true');
    const values = (await scrape()).samples.flatMap((s) => Object.values(s.labels));
    expect(values.length).toBeGreaterThan(50);
    const secrets = [sim.token, runtime.config.token, pseudonym, pseudonym.split('@')[0]!];
    for (const value of values) {
      expect(value).not.toMatch(/[^\s@]+@[^\s@]+\.|user-[0-9a-f]{12}/);
      for (const secret of secrets) expect(value).not.toContain(secret);
    }
    expect(new Set(values)).toContain('get_user_profile');
  });

  it('carries a client trace, from the HTTP header or from _meta, to the upstream request', async () => {
    const meta = new Client({ name: 'trace-meta', version: '1' });
    await meta.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
    await meta.callTool({
      name: 'get_active_user_counts',
      arguments: { range: 'last_90_days' },
      _meta: { traceparent: `00-${TRACE_META}-${PARENT}-01` },
    });
    await meta.close();
    const sent = (trace: string) => sim.requests().filter((r) => r.traceparent?.split('-')[1] === trace);
    expect(sent(TRACE_HEADER)).toHaveLength(1);
    expect(sent(TRACE_META)).toHaveLength(1);

    await telemetry.shutdown();
    const spans = collector.spans();
    for (const trace of [TRACE_HEADER, TRACE_META]) {
      const mine = spans.filter((s) => s.traceId === trace);
      const tool = mine.find((s) => s.name === 'tools/call get_active_user_counts')!;
      expect(tool.parentSpanId).toBe(PARENT);
      expect(tool.attributes['gen_ai.tool.name']).toBe('get_active_user_counts');
      // The upstream request's span is the one whose id the upstream received, beneath the call's.
      const upstream = mine.find((s) => s.name === 'GET dau-count')!;
      expect(sent(trace)[0]!.traceparent!.split('-')[2]).toBe(upstream.spanId);
      const ancestors = (s: typeof upstream): string[] => {
        const parent = mine.find((p) => p.spanId === s.parentSpanId);
        return parent ? [parent.name, ...ancestors(parent)] : [];
      };
      expect(ancestors(upstream)).toEqual(['cache look-up', 'tools/call get_active_user_counts']);
      expect(mine.map((s) => s.name)).toContain('rate limit wait');
    }
    const resource = collector.resources()[0]!;
    expect(resource['service.name']).toBe('oam-under-test');
    // OTLP metrics came too, with the same counts as /metrics.
    const points = collector.points().filter((p) => p.metric === 'org_analytics.tool.calls');
    expect(points.length).toBeGreaterThan(0);
    // What left over OTLP carries no one either: span and point attributes alike.
    const attributes = [...spans, ...collector.points()].flatMap((x) => Object.values(x.attributes).map(String));
    for (const value of attributes)
      expect(value).not.toMatch(/[^\s@]+@[^\s@]+\.|user-[0-9a-f]{12}|telemetry-sim-token/);
  });
});
