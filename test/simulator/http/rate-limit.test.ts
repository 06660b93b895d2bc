import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/simulator/http/rate-limit.js';
import { simClient, type SimClient } from '../../helpers/sim.js';

describe('token buckets (exact, on a fake clock)', () => {
  const limiter = (timeScale = 1) => {
    let now = 0;
    const l = new RateLimiter({ enabled: true, timeScale }, () => now);
    return { l, advance: (ms: number) => (now += ms) };
  };
  const burst = (l: RateLimiter, group: 'general' | 'credit-usage' | 'cost-analytics', n: number, token = 't') =>
    Array.from({ length: n }, () => l.take(token, group).ok);

  it.each([
    ['general', 20, 1000],
    ['credit-usage', 10, 2000],
    ['cost-analytics', 10, 2000],
  ] as const)('%s allows a burst of %i, then one request per %i ms', (group, size, interval) => {
    const refilled = limiter();
    expect(burst(refilled.l, group, size).every(Boolean)).toBe(true);
    refilled.advance(interval);
    expect(refilled.l.take('t', group).ok).toBe(true);
    const early = limiter();
    burst(early.l, group, size);
    early.advance(interval - 1);
    expect(early.l.take('t', group).ok).toBe(false);
  });

  it('sustains exactly the documented rate once the burst is spent', () => {
    const { l, advance } = limiter();
    burst(l, 'general', 20);
    for (let i = 0; i < 60; i++) {
      advance(1000);
      expect(l.take('t', 'general').ok).toBe(true);
    }
  });

  it('blocks the whole group for 10 seconds after an excess, even though tokens refill meanwhile', () => {
    const { l, advance } = limiter();
    burst(l, 'general', 20);
    expect(l.take('t', 'general')).toEqual({ ok: false, retryAfterMs: 10_000 });
    advance(9_999);
    expect(l.take('t', 'general')).toEqual({ ok: false, retryAfterMs: 1 });
    advance(1);
    expect(l.take('t', 'general').ok).toBe(true);
  });

  it('keeps the groups and the tokens apart', () => {
    const { l } = limiter();
    burst(l, 'general', 21);
    expect(l.take('t', 'general').ok).toBe(false);
    expect(l.take('t', 'credit-usage').ok).toBe(true);
    expect(l.take('t', 'cost-analytics').ok).toBe(true);
    expect(l.take('u', 'general').ok).toBe(true);
    burst(l, 'credit-usage', 10);
    expect(l.take('t', 'credit-usage').ok).toBe(false);
    expect(l.take('t', 'cost-analytics').ok).toBe(true);
  });

  it('runs faster under a time scale: 10× makes the block last 1 real second', () => {
    const { l, advance } = limiter(10);
    burst(l, 'general', 20);
    expect(l.take('t', 'general')).toEqual({ ok: false, retryAfterMs: 1000 });
    advance(1000);
    expect(l.take('t', 'general').ok).toBe(true);
  });

  it('limits nothing when switched off', () => {
    const l = new RateLimiter({ enabled: false, timeScale: 1 }, () => 0);
    expect(burst(l, 'general', 500).every(Boolean)).toBe(true);
  });
});

describe('rate limits over HTTP', () => {
  let c: SimClient;
  afterEach(() => c.close());

  it('answers 429 past the burst, to every request of that group only, without Retry-After by default', async () => {
    // Simulated time at a thousandth of real time: the burst does not refill while a busy machine sends the 21.
    c = await simClient({ users: 20, rateLimit: true, timeScale: 0.001 });
    const statuses = [];
    for (let i = 0; i < 21; i++) statuses.push((await c.get('dau')).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    const limited = await c.get('dau-count');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('ResourceExhausted');
    expect(limited.headers.get('retry-after')).toBeNull();
    expect((await c.post('get-user-budget-overrides', {})).status).toBe(429);
    expect((await c.get('credit-usage-by-user')).status).toBe(200);
    expect((await c.post('cost-analytics', {})).status).toBe(200);
    expect((await c.get('dau', {}, 'ro-token')).status).toBe(200);
    expect((await c.get('/api/changelog', {}, null)).status).toBe(200);
  });

  it('counts requests answered 400 too, and sends Retry-After when switched on', async () => {
    c = await simClient({ users: 20, rateLimit: true, retryAfter: true });
    for (let i = 0; i < 10; i++) expect((await c.get('credit-usage-by-user', { by_date: 'maybe' })).status).toBe(400);
    const limited = await c.get('credit-usage-by-user');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('10');
  });

  it('lifts the block after 10 simulated seconds (here 100 ms at time scale 100)', async () => {
    c = await simClient({ users: 20, rateLimit: true, timeScale: 100 });
    // Nearly still while the burst is spent (no token comes back however busy the machine), then 100× again.
    c.sim.configure({ time_scale: 0.001 });
    for (let i = 0; i < 11; i++) await c.post('cost-analytics', {});
    expect((await c.post('cost-analytics', {})).status).toBe(429);
    c.sim.configure({ time_scale: 100 });
    await new Promise((r) => setTimeout(r, 150));
    expect((await c.post('cost-analytics', {})).status).toBe(200);
  });
});
