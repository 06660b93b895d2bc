import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 400 });
});
afterAll(() => c.close());

describe('rate-limit buckets belong to the token', () => {
  it('are not reset by spelling the Authorization header differently', async () => {
    // Simulated time at a thousandth of real time: the burst does not refill while a busy machine sends the 20.
    const sim = await simClient({ users: 10, rateLimit: true, timeScale: 0.001 });
    try {
      for (let i = 0; i < 20; i++) expect((await sim.get('dau')).status).toBe(200);
      for (const header of ['bearer rw-token', 'Bearer  rw-token', 'BEARER rw-token ']) {
        const res = await fetch(new URL('/analytics/v0/dau', sim.sim.url), { headers: { authorization: header } });
        expect(res.status).toBe(429);
      }
    } finally {
      await sim.close();
    }
  });
});

describe('edges', () => {
  it('parses years below 100 like any other (credit usage has no lookback)', async () => {
    const res = await c.get('credit-usage-by-user', { start_date: '0050-01-01', end_date: '0050-01-07' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.effective_start_date).toBe('0050-01-01');
  });

  it('answers a wrong method on the changelog in the changelog error shape', async () => {
    const res = await c.post('/api/changelog', {}, null);
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ success: false, code: 'METHOD_NOT_ALLOWED' });
  });

  it('refuses an oversized body with 413 and keeps serving', async () => {
    const res = await c
      .post('cost-analytics', undefined, undefined, `{"x":"${'a'.repeat(17 * 1024 * 1024)}"}`)
      .catch(() => ({ status: 413 }));
    expect(res.status).toBe(413);
    expect((await c.get('dau')).status).toBe(200);
  });
});
