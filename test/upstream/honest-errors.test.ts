import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { toolErrorMessage } from '../../src/tools/failure-text.js';
import type { AnalyticsClient, ClientOptions } from '../../src/upstream/client.js';
import { withDeadline } from '../../src/upstream/transport/deadline.js';
import {
  PermissionDeniedError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamUnavailableError,
} from '../../src/upstream/errors.js';
import { proxyFor } from '../../src/upstream/transport/http.js';
import { NOW } from '../helpers/sim.js';
import { clientFor, requestsTo } from '../helpers/client.js';
import { changelog } from '../../src/upstream/endpoints/changelog.js';
import { dauCount } from '../../src/upstream/endpoints/dau-count.js';
import { setUserBudgetOverrides } from '../../src/upstream/endpoints/set-user-budget-overrides.js';

let sim: Simulator | undefined;
let client: AnalyticsClient | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await client?.close();
  await sim?.close();
  client = sim = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function start(options: Partial<ClientOptions> = {}) {
  sim = await startSimulator({ users: 30, now: NOW, rateLimit: false, token: 'rw' });
  client = clientFor(sim, options);
  return { sim, client };
}

const caught = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (e: unknown) => e,
  );

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** A site whose /api/changelog answers `status` with the changelog error body. */
async function refusingSite(status: number): Promise<{ url: string; authorization: Array<string | undefined> }> {
  const authorization: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    authorization.push(req.headers.authorization);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        success: false,
        error: 'Forbidden',
        code: 'FORBIDDEN',
        message: 'Access denied.',
        resolution: 'Contact support.',
      }),
    );
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, authorization };
}

const ENTRY = {
  service_account_name: 'ci-pipeline',
  resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
  period: 'BUDGET_PERIOD_MONTHLY',
  config: { limit: '10' },
};

describe('failed writes and reads say what was and was not retried', () => {
  it('a write that failed upstream may have been applied: it says how to check, and never that it was retried', async () => {
    const { sim, client } = await start();
    sim.injectFault({ path: '/analytics/v0/set-user-budget-overrides', kind: '503' });
    const said = toolErrorMessage(await caught(client.call(setUserBudgetOverrides, { overrides: [ENTRY] })));
    expect(said).toMatch(
      /Writes are not retried, so the change may or may not have been applied: check with get_budget_overrides \(or repeat the same call with dry_run: true/,
    );
    expect(said).not.toMatch(/retried already|retried \d/);
    expect(requestsTo(sim, 'set-user-budget-overrides')).toHaveLength(1);
  });

  it('a write reset mid-flight says the same', async () => {
    const { sim, client } = await start();
    sim.injectFault({ path: '/analytics/v0/set-user-budget-overrides', kind: 'reset' });
    expect(toolErrorMessage(await caught(client.call(setUserBudgetOverrides, { overrides: [ENTRY] })))).toMatch(
      /may or may not have been applied/,
    );
  });

  it('a read that failed every attempt says how often it was retried', async () => {
    const { sim, client } = await start();
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: '500', count: 3 });
    expect(toolErrorMessage(await caught(client.list(dauCount, {})))).toMatch(
      /It was retried 2 times already\. Try again in a minute\./,
    );
  });

  it('a write that timed out gets advice for a write, not "a shorter date range"', async () => {
    const { sim, client } = await start({ timeouts: { attemptMs: 300 } });
    sim.injectFault({ path: '/analytics/v0/set-user-budget-overrides', kind: 'hang' });
    const said = toolErrorMessage(await caught(client.call(setUserBudgetOverrides, { overrides: [ENTRY] })));
    expect(said).toMatch(/^The analytics API did not answer in time/);
    expect(said).toMatch(/may or may not have been applied: check with get_budget_overrides/);
    expect(said).not.toMatch(/date range/);
  });
});

describe('the public changelog', () => {
  it.each([
    [401, UnauthenticatedError],
    [403, PermissionDeniedError],
  ])('a %s is the public site refusing, not a token problem (none is sent)', async (status, type) => {
    const site = await refusingSite(status);
    const { client } = await start({ siteUrl: site.url });
    const error = await caught(client.call(changelog, { client: 'all', page: 0 }));
    expect(error).toBeInstanceOf(type);
    const said = toolErrorMessage(error);
    expect(said).toMatch(
      new RegExp(`^The public changelog refused the request \\(${status}\\): Access denied\\. Contact support\\.`),
    );
    expect(said).toMatch(/ANALYTICS_SITE_URL may point to the wrong site: check it, or try again later/);
    expect(said).not.toMatch(/ANALYTICS_API_TOKEN|scope/);
    expect(site.authorization).toEqual([undefined]);
  });

  it('honours Retry-After on a 429 and retries, unless the wait outlasts the call budget', async () => {
    const { sim, client } = await start();
    sim.injectFault({ path: '/api/changelog', kind: '429', retryAfterSeconds: 1 });
    const started = Date.now();
    const answer = await client.call(changelog, { client: 'all', page: 0 });
    expect(answer.value.entries.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(requestsTo(sim, '/api/changelog').map((r) => r.status)).toEqual([429, 200]);

    client.cache.clear();
    sim.clearRequests();
    sim.injectFault({ path: '/api/changelog', kind: '429', retryAfterSeconds: 30 });
    const t0 = Date.now();
    const error = await caught(client.call(changelog, { client: 'all', page: 1 }, withDeadline(undefined, 5_000)));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(requestsTo(sim, '/api/changelog')).toHaveLength(1);
  });
});

describe('connections that never reached the upstream', () => {
  it('names the proxy and its variable when the proxy is down, without the credentials in its URL', async () => {
    const port = await closedPort();
    const { sim, client } = await start({ env: { HTTP_PROXY: `http://proxyuser:s3cret@127.0.0.1:${port}` } });
    const error = await caught(client.list(dauCount, {}));
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect(error).toMatchObject({ neverReached: true, proxyVariable: 'HTTP_PROXY' });
    const said = toolErrorMessage(error);
    expect(said).toMatch(
      new RegExp(
        `Could not connect to the proxy http://127\\.0\\.0\\.1:${port} \\(set by HTTP_PROXY\\) \\(ECONNREFUSED\\)`,
      ),
    );
    expect(said).toMatch(/never got past the proxy\. Check HTTP_PROXY \(and NO_PROXY\) and that the proxy is running/);
    expect(said).not.toMatch(/s3cret|proxyuser|ANALYTICS_BASE_URL/);
    expect(sim.requests()).toEqual([]);
  });

  it('says so when the proxy refuses to forward the request', async () => {
    const proxy = createServer((_req, res) => res.writeHead(407).end());
    proxy.on('connect', (_req, socket) => socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n'));
    servers.push(proxy);
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const { sim, client } = await start({ env: { HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl } });
    const said = toolErrorMessage(await caught(client.list(dauCount, {})));
    expect(said).toMatch(
      new RegExp(
        `The proxy ${proxyUrl.replace(/\./g, '\\.')} \\(set by HTTP_PROXY\\) refused to forward the request \\(407\\)\\. The request never got past the proxy`,
      ),
    );
    expect(sim.requests()).toEqual([]);
  });

  it('decides like the proxy agent which requests bypass the proxy', () => {
    const env = {
      HTTPS_PROXY: 'http://u:p@proxy.corp:3128',
      HTTP_PROXY: 'http://plain.corp:8080',
      NO_PROXY: 'localhost,.internal.example,api.example.com:8443',
    };
    expect(proxyFor(new URL('https://api.example.com/x'), env)).toEqual({
      origin: 'http://proxy.corp:3128',
      variable: 'HTTPS_PROXY',
    });
    expect(proxyFor(new URL('http://api.example.com/x'), env)).toEqual({
      origin: 'http://plain.corp:8080',
      variable: 'HTTP_PROXY',
    });
    expect(proxyFor(new URL('https://api.example.com:8443/x'), env)).toBeUndefined();
    expect(proxyFor(new URL('https://a.internal.example/x'), env)).toBeUndefined();
    expect(proxyFor(new URL('http://localhost:3000/x'), env)).toBeUndefined();
    expect(proxyFor(new URL('https://x.example/'), { NO_PROXY: '*', HTTPS_PROXY: 'http://p:1' })).toBeUndefined();
    expect(proxyFor(new URL('https://x.example/'), { https_proxy: 'not a url' })).toEqual({
      origin: 'the proxy',
      variable: 'https_proxy',
    });
  });

  it('connection refused suggests checking ANALYTICS_BASE_URL, then trying again', async () => {
    const port = await closedPort();
    const { client } = await start({ baseUrl: `http://127.0.0.1:${port}` });
    const said = toolErrorMessage(await caught(client.list(dauCount, {})));
    expect(said).toMatch(
      /^The analytics API could not be reached: Could not connect to http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\./,
    );
    expect(said).toMatch(/Check that ANALYTICS_BASE_URL is right .*then try again/);
  });

  it('for the changelog it names ANALYTICS_SITE_URL', async () => {
    const port = await closedPort();
    const { client } = await start({ siteUrl: `http://127.0.0.1:${port}` });
    const said = toolErrorMessage(await caught(client.call(changelog, { client: 'all', page: 0 })));
    expect(said).toMatch(/^The public changelog could not be reached/);
    expect(said).toMatch(/Check that ANALYTICS_SITE_URL is right/);
  });

  it('a write that never left says nothing was applied', async () => {
    const port = await closedPort();
    const { client } = await start({ baseUrl: `http://127.0.0.1:${port}` });
    const said = toolErrorMessage(await caught(client.call(setUserBudgetOverrides, { overrides: [ENTRY] })));
    expect(said).toMatch(/Nothing was applied\. Check that ANALYTICS_BASE_URL is right/);
  });
});
