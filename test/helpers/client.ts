import { AnalyticsClient, type ClientOptions } from '../../src/upstream/client.js';
import type { Simulator } from '../../src/simulator/index.js';

/** Limits far above the documented ones, for simulators that run with rate limiting off. */
export const UNLIMITED = {
  general: { perMinute: 600_000, burst: 1000 },
  'credit-usage': { perMinute: 600_000, burst: 1000 },
  'cost-analytics': { perMinute: 600_000, burst: 1000 },
};

/**
 * A client wired to a simulator: same clock, fast retries, the simulator's read+write token, and (unless
 * a test passes its own) no client-side pacing, since these simulators do not rate limit.
 */
export function clientFor(sim: Simulator, options: Partial<ClientOptions> = {}): AnalyticsClient {
  return new AnalyticsClient({
    baseUrl: sim.url,
    token: sim.token,
    now: () => sim.clock.now(),
    random: () => 0.5,
    ...options,
    retry: { baseDelayMs: 5, maxDelayMs: 20, ...options.retry },
    limits: { ...UNLIMITED, ...options.limits },
  });
}

/** The simulator's request log for one API path. */
export function requestsTo(sim: Simulator, endpoint: string) {
  return sim.requests().filter((r) => r.path === `/analytics/v0/${endpoint}` || r.path === endpoint);
}
