import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { simClient, YESTERDAY, type SimClient } from '../../helpers/sim.js';

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
    await expect(
      fetch(new URL(DAU, c.sim.url), {
        headers: { authorization: 'Bearer rw-token' },
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('trickle: status and headers at once, then the normal body one byte every intervalMs', async () => {
    const query = { start_date: YESTERDAY, end_date: YESTERDAY };
    const normal = await c.get('dau-count', query);
    c.sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'trickle', intervalMs: 5 });
    const url = new URL('/analytics/v0/dau-count', c.sim.url);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const started = Date.now();
    const res = await fetch(url, { headers: { authorization: 'Bearer rw-token' } });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(normal.text));
    const reader = res.body!.getReader();
    const parts: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    expect(Buffer.concat(parts).toString()).toBe(normal.text);
    // One byte per interval: the whole body takes at least (bytes × interval), whatever the machine's speed.
    expect(Date.now() - started).toBeGreaterThanOrEqual(normal.text.length * 5 * 0.8);
    expect(parts.length).toBeGreaterThan(1);
    expect(c.sim.requests().at(-1)).toMatchObject({ path: '/analytics/v0/dau-count', status: 200, fault: 'trickle' });
    expect((await c.get('dau-count', query)).text).toBe(normal.text);
  });

  it('trickle waits 3 s between bytes by default', async () => {
    c.sim.injectFault({ path: DAU, kind: 'trickle' });
    const stop = new AbortController();
    const res = await fetch(new URL(DAU, c.sim.url), {
      headers: { authorization: 'Bearer rw-token' },
      signal: stop.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await Promise.race([
      reader.read().then(() => 'a byte'),
      new Promise((r) => setTimeout(() => r('nothing yet'), 1000)),
    ]);
    expect(first).toBe('nothing yet');
    stop.abort();
    await reader.cancel().catch(() => {});
  });

  it('huge: a 200 JSON page of exactly the bytes asked, with or without a Content-Length', async () => {
    for (const contentLength of [true, false]) {
      c.sim.injectFault({ path: DAU, kind: 'huge', bytes: 1_000_003, contentLength });
      const res = await c.get('dau');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(contentLength ? '1000003' : null);
      expect(Buffer.byteLength(res.text)).toBe(1_000_003);
      expect(JSON.parse(res.text).users.length).toBeGreaterThan(1000);
    }
  });

  it('huge: made as it is sent, and stopped when the client goes away', async () => {
    c.sim.injectFault({ path: DAU, kind: 'huge', bytes: 2 ** 40 });
    const res = await fetch(new URL(DAU, c.sim.url), { headers: { authorization: 'Bearer rw-token' } });
    expect(res.headers.get('content-length')).toBe(String(2 ** 40));
    const reader = res.body!.getReader();
    let read = 0;
    while (read < 4 * 1024 * 1024) read += (await reader.read()).value!.length;
    await reader.cancel();
    // A terabyte announced, a few megabytes read: the rest was never made, and the next request is served.
    expect((await c.get('dau')).status).toBe(200);
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

  it('injects a trickle with its interval over HTTP', async () => {
    expect((await control('POST', 'faults', { path: DAU, kind: 'trickle', interval_ms: 0 })).status).toBe(400);
    expect(await (await control('POST', 'faults', { path: DAU, kind: 'trickle', interval_ms: 1 })).json()).toEqual({
      ok: true,
      pending_faults: 1,
    });
    const res = await c.get('dau');
    expect(res.status).toBe(200);
    expect(res.body.users.length).toBeGreaterThan(0);
    expect(c.sim.requests().at(-1)?.fault).toBe('trickle');
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
