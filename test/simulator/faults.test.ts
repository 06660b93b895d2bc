import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { simClient, type SimClient } from '../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 30 });
});
afterAll(() => c.close());
beforeEach(() => {
  c.sim.clearFaults();
  c.sim.clearRequests();
});

const DAU = '/analytics/v0/dau';

describe('injected faults answer the next N requests to a path', () => {
  it.each([
    ['500', 500, 'Internal'],
    ['503', 503, 'Unavailable'],
    ['429', 429, 'ResourceExhausted'],
  ] as const)('%s', async (kind, status, code) => {
    c.sim.injectFault({ path: DAU, kind, count: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await c.get('dau');
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(code);
    }
    expect((await c.get('dau')).status).toBe(200);
  });

  it('a 429 fault can carry Retry-After', async () => {
    c.sim.injectFault({ path: DAU, kind: '429', retryAfterSeconds: 3 });
    expect((await c.get('dau')).headers.get('retry-after')).toBe('3');
  });

  it('malformed JSON: a 200 whose body does not parse', async () => {
    c.sim.injectFault({ path: DAU, kind: 'malformed' });
    const res = await c.get('dau');
    expect(res.status).toBe(200);
    expect(() => JSON.parse(res.text)).toThrow();
  });

  it('reset: the connection is torn down with no answer', async () => {
    c.sim.injectFault({ path: DAU, kind: 'reset' });
    await expect(c.get('dau')).rejects.toThrow();
    expect((await c.get('dau')).status).toBe(200);
  });

  it('hang: no answer until the client gives up', async () => {
    c.sim.injectFault({ path: DAU, kind: 'hang' });
    const started = Date.now();
    await expect(fetch(new URL(DAU, c.sim.url), { headers: { authorization: 'Bearer rw-token' }, signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('only touches the named path, unless the path is *', async () => {
    c.sim.injectFault({ path: DAU, kind: '500' });
    expect((await c.get('dau-count')).status).toBe(200);
    expect((await c.get('dau')).status).toBe(500);
    c.sim.injectFault({ path: '*', kind: '503', count: 2 });
    expect((await c.get('dau-count')).status).toBe(503);
    expect((await c.post('cost-analytics', {})).status).toBe(503);
    expect((await c.get('dau-count')).status).toBe(200);
  });

  it('uses the changelog error body on the changelog path', async () => {
    c.sim.injectFault({ path: '/api/changelog', kind: '500' });
    const res = await c.get('/api/changelog', {}, null);
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: false, code: 'CHANGELOG_UNAVAILABLE' });
  });
});

describe('the control endpoint', () => {
  const control = (method: string, action: string, body?: unknown, token = 'rw-token') =>
    fetch(new URL(`/__sim/${action}`, c.sim.url), {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('injects faults over HTTP, and needs the read-write token', async () => {
    expect((await control('POST', 'faults', { path: DAU, kind: '503', count: 1 }, 'ro-token')).status).toBe(401);
    const res = await control('POST', 'faults', { path: DAU, kind: '503', count: 1 });
    expect(await res.json()).toEqual({ ok: true, pending_faults: 1 });
    expect((await c.get('dau')).status).toBe(503);
    expect((await c.get('dau')).status).toBe(200);
  });

  it('rejects an unknown fault kind', async () => {
    const res = await control('POST', 'faults', { path: DAU, kind: 'explode' });
    expect(res.status).toBe(400);
  });

  it('sets the clock, the plan and switches, and reports them', async () => {
    const res = await control('POST', 'settings', { now: '2026-12-02T05:00:00Z', plan: 'usd', retry_after: true });
    expect(await res.json()).toMatchObject({ now: '2026-12-02T05:00:00.000Z', plan: 'usd', retry_after: true });
    expect((await c.get('dau')).body.metadata.effective_date).toBe('2026-12-01');
    await control('POST', 'settings', { now: '2026-11-21T10:00:00Z', plan: 'credits', retry_after: false });
  });

  it('lists and clears the request log, which never holds the token itself', async () => {
    await c.get('dau', { page_size: 3 });
    await c.post('cost-analytics', { group_by_keys: [] }, 'ro-token');
    await c.get('dau', {}, 'bad');
    const log = ((await (await control('GET', 'requests')).json()) as { requests: any[] }).requests;
    expect(log.map((r: any) => [r.method, r.path, r.status, r.auth])).toEqual([
      ['GET', DAU, 200, 'write'],
      ['POST', '/analytics/v0/cost-analytics', 200, 'read'],
      ['GET', DAU, 401, 'invalid'],
    ]);
    expect(log[0].query).toEqual({ page_size: '3' });
    expect(log[1].body).toEqual({ group_by_keys: [] });
    expect(JSON.stringify(log)).not.toMatch(/rw-token|ro-token/);
    await control('DELETE', 'requests');
    expect(c.sim.requests()).toEqual([]);
  });
});
