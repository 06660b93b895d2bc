import {
  metrics,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  type UpDownCounter,
} from '@opentelemetry/api';
import { VERSION } from '../version.js';

/**
 * Seconds, for durations from a cached answer (a millisecond) to a call at its budget (42 s): OpenTelemetry's
 * HTTP buckets, with the long tail a paged listing or a rate-limit wait reaches.
 */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const seconds = (meter: Meter, name: string, description: string) =>
  meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: SECONDS } });

/**
 * The instruments the layers below record on. Their names follow OpenTelemetry's semantic conventions where there
 * are some (MCP, HTTP client), org_analytics.* otherwise; their attributes never carry an identity, an email or a
 * token (test/telemetry/telemetry-http.test.ts looks), and a tenant only by its name.
 */
function make(meter: Meter) {
  return {
    toolDuration: seconds(meter, 'mcp.server.operation.duration', 'Duration of MCP requests answered, by tool'),
    toolCalls: meter.createCounter('org_analytics.tool.calls', {
      description: 'Tool calls by tool and outcome (ok, error, pending, confirming, signing_in)',
    }),
    answers: meter.createCounter('org_analytics.answers', {
      description: 'Tool answers by where their figures came from: history (the store), live (the API now), cache',
    }),
    upstreamDuration: seconds(meter, 'http.client.request.duration', 'Duration of each upstream HTTP request'),
    upstreamRequests: meter.createCounter('org_analytics.upstream.requests', {
      description: 'Upstream HTTP requests sent, by endpoint (last path segment) and status',
    }),
    rateLimited: meter.createCounter('org_analytics.upstream.rate_limited', {
      description: 'Upstream answers 429 (rate limited), by rate group',
    }),
    retries: meter.createCounter('org_analytics.upstream.retries', {
      description: 'Upstream requests sent again (after a 429, a 401 renewal or a failure), by endpoint',
    }),
    limiterQueue: meter.createUpDownCounter('org_analytics.limiter.queue_depth', {
      description: 'Upstream requests waiting for a rate-limit token, by rate group',
    }),
    limiterWait: seconds(
      meter,
      'org_analytics.limiter.wait.duration',
      'Time a request waited for its rate-limit token',
    ),
    cacheHits: meter.createCounter('org_analytics.cache.hits', { description: 'Cache look-ups answered, by layer' }),
    cacheMisses: meter.createCounter('org_analytics.cache.misses', { description: 'Cache look-ups missed, by layer' }),
  } satisfies Record<string, Counter | Histogram | UpDownCounter>;
}

export type Instruments = ReturnType<typeof make>;

let made: { provider: MeterProvider; instruments: Instruments } | undefined;

/**
 * The instruments of the meter provider in force. Until one is registered (telemetry off) they are the API's
 * no-ops; the API has no proxy for meters, so they are made again once a provider is registered.
 */
export function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (made?.provider !== provider)
    made = { provider, instruments: make(provider.getMeter('org-analytics-mcp', VERSION)) };
  return made.instruments;
}
