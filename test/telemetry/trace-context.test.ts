import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { startTelemetry, telemetryWanted } from '../../src/runtime/telemetry.js';
import { callContext } from '../../src/telemetry/spans.js';
import { harness, type Harness } from '../helpers/mcp.js';

const TRACE = '5bf92f3577b34da6a3ce929d0e0e4737';
const PARENT = '00f067aa0ba902b7';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// Nothing exported: no OTLP endpoint, no /metrics. The trace context is carried all the same.
beforeAll(async () => {
  await startTelemetry({}, false);
});

const lines = (logs: string[]) => logs.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a client trace with telemetry off', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`reaches the upstream request unchanged, and every log line of the call names it (${era})`, async () => {
      h = await harness({ era });
      const before = h.logs.length;
      const r = await h.mcp.callTool({
        name: 'get_active_user_counts',
        arguments: { range: 'last_7_days' },
        _meta: { traceparent: `00-${TRACE}-${PARENT}-01` },
      });
      expect(r.isError).toBeFalsy();
      // Not exported, so no span of ours exists: the upstream is told the client's own span as its parent.
      const sent = h.sim.requests().filter((q) => q.path.endsWith('/dau-count'));
      expect(sent.map((q) => q.traceparent)).toEqual([`00-${TRACE}-${PARENT}-01`]);
      const during = lines(h.logs.slice(before));
      expect(during.map((l) => l.message)).toEqual(expect.arrayContaining(['tool done', 'call']));
      for (const line of during)
        expect([line.message, line.trace_id, line.span_id]).toEqual([line.message, TRACE, PARENT]);
    });
  }

  it('sends no traceparent, and logs no trace ids, when the client sent none', async () => {
    h = await harness({ era: 'modern' });
    const before = h.logs.length;
    await h.call('get_active_user_counts', { range: 'last_7_days' });
    expect(h.sim.requests().filter((q) => q.traceparent !== undefined)).toEqual([]);
    const during = lines(h.logs.slice(before));
    expect(during.length).toBeGreaterThan(0);
    for (const line of during) expect(line.trace_id).toBeUndefined();
  });
});

describe('where a call takes its trace from', () => {
  const header = (value: string) => ({ get: (name: string) => (name === 'traceparent' ? value : null) });
  const traceOf = (ctx: ReturnType<typeof callContext>) => trace.getSpanContext(ctx)?.traceId;

  it('_meta first, else the HTTP header; a malformed _meta does not hide a good header', () => {
    const other = 'a'.repeat(32);
    const good = `00-${TRACE}-${PARENT}-01`;
    expect(traceOf(callContext({ traceparent: good }, header(`00-${other}-${PARENT}-01`), null))).toBe(TRACE);
    expect(traceOf(callContext({ traceparent: 'garbage' }, header(good), null))).toBe(TRACE);
    expect(traceOf(callContext(undefined, header(good), null))).toBe(TRACE);
    expect(traceOf(callContext({ traceparent: 'garbage' }, header('also garbage'), null))).toBeUndefined();
  });

  it('OTEL_SDK_DISABLED=true turns every signal off, /metrics included', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(telemetryWanted(env, true)).toEqual({
      prometheus: true,
      otlpMetrics: 'http://127.0.0.1:4318/v1/metrics',
      otlpTraces: 'http://127.0.0.1:4318/v1/traces',
    });
    expect(telemetryWanted({ ...env, OTEL_SDK_DISABLED: 'true' }, true)).toEqual({
      prometheus: false,
      otlpMetrics: undefined,
      otlpTraces: undefined,
    });
  });
});
