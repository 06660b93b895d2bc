import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAuditSink } from '../../src/privacy/audit.js';
import { configSchema } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { createServer } from '../../src/mcp/server.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { AnalyticsClient } from '../../src/upstream/client.js';
import { DEFAULT_LIMITS } from '../../src/upstream/limits/limits-config.js';
import { TOOLS } from '../../src/tools/index.js';
import { DEFAULT_WARM_LIST, WARM_KINDS, parseWarmList } from '../../src/warm/warm-list.js';
import { warmUp, type WarmTarget } from '../../src/warm/warm.js';
import { clientFor } from '../helpers/client.js';
import { NOW } from '../helpers/sim.js';

/** The tool calls the default warm list stands for, as an admin would ask them. */
const ASKED: Array<[string, Record<string, unknown>]> = [
  ['get_user_activity', { range: 'last_7_days' }],
  ['get_user_activity', { range: 'last_30_days' }],
  ['get_credit_usage', { range: 'last_7_days' }],
  ['get_credit_usage', { range: 'last_30_days' }],
  ['get_cost_analytics', { range: 'last_30_days', group_by: ['user'] }],
  ['get_cost_analytics', { range: 'last_30_days', group_by: ['resource'] }],
  ['get_active_user_counts', { range: 'last_90_days' }],
];

let sim: Simulator;
const closing: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  // Rate limited as documented, and so is the client: the warm-up must not meet a single 429.
  sim = await startSimulator({ users: 300, now: NOW, rateLimit: true, token: 'warm' });
});
afterAll(() => sim.close());
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  sim.clearRequests();
});

const apiRequests = () => sim.requests().filter((r) => r.path.startsWith('/analytics/'));
const config = () => configSchema.parse({ token: sim.token, baseUrl: sim.url, logLevel: 'error' });

function target(options: { cacheDir?: string } = {}): WarmTarget & { client: AnalyticsClient; close(): Promise<void> } {
  const client = clientFor(sim, { limits: DEFAULT_LIMITS, ...options });
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= client.close());
  closing.push(close);
  const log = createLogger(
    'error',
    (t) => t,
    () => {},
  );
  return { client, config: config(), log, secrets: [sim.token], close };
}

/** Asks every question (by default ASKED) through a real MCP client against the server on `client`. */
async function askAll(client: AnalyticsClient, asked = ASKED): Promise<Array<{ isError: boolean; structured: any }>> {
  const cfg = config();
  const pii = new Pseudonymizer(cfg.pii, cfg.token!);
  const log = createLogger(
    'error',
    (t) => t,
    () => {},
  );
  const server = createServer({ client, config: cfg, log, pii, audit: createAuditSink(pii, undefined, () => {}) });
  const mcp = new Client({ name: 'warm-test', version: '1.0.0' }, { capabilities: {} });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await mcp.connect(clientSide);
  try {
    const answers = [];
    for (const [name, args] of asked) {
      const r = await mcp.callTool({ name, arguments: args });
      answers.push({ isError: r.isError === true, structured: r.structuredContent });
    }
    return answers;
  } finally {
    await mcp.close();
    await server.close();
  }
}

describe('warm-up', () => {
  it('fetches the default list with no 429, and the tools then answer without a request upstream', async () => {
    const t = target();
    const outcome = await warmUp(t, parseWarmList(DEFAULT_WARM_LIST));
    expect(outcome.ran).toBe(true);
    if (!outcome.ran) return;
    expect(outcome.results.map((r) => r.name)).toEqual(DEFAULT_WARM_LIST.split(','));
    for (const r of outcome.results) {
      expect(r.error).toBeUndefined();
      expect(r.fromCache).toBe(false);
      expect(r.pages).toBeGreaterThan(0);
    }
    const sent = apiRequests();
    expect(sent.length).toBe(outcome.results.reduce((n, r) => n + r.pages, 0));
    expect(sent.filter((r) => r.status === 429)).toEqual([]);

    sim.clearRequests();
    const answers = await askAll(t.client);
    for (const a of answers) expect(a.isError).toBe(false);
    expect(apiRequests()).toEqual([]);

    const again = await warmUp(t, parseWarmList(DEFAULT_WARM_LIST));
    expect(again.ran && again.results.every((r) => r.fromCache && !r.error)).toBe(true);
    expect(apiRequests()).toEqual([]);
  });

  it('every kind a tool declares, fetched ahead, answers the call of that tool with those arguments from cache', async () => {
    const t = target();
    const declared = TOOLS.flatMap((tool) =>
      Object.entries(tool.requests?.warm ?? {}).map(([kind, args]) => ({ kind, tool: tool.name, args })),
    );
    expect(declared.map((d) => d.kind).sort()).toEqual(
      [
        'cost',
        'cost-by-product',
        'cost-by-resource',
        'cost-by-user',
        'credit-usage',
        'daily-usage',
        'dau-count',
        'user-activity',
      ].sort(),
    );
    expect(WARM_KINDS).toEqual(declared.map((d) => d.kind));
    for (const { kind, tool, args } of declared) {
      const outcome = await warmUp(t, parseWarmList(`${kind}:last_7_days`));
      expect(outcome.ran && outcome.results.every((r) => !r.error && r.pages > 0)).toBe(true);
      sim.clearRequests();
      const [answer] = await askAll(t.client, [[tool, { ...args, range: 'last_7_days' }]]);
      expect(answer!.isError).toBe(false);
      expect(apiRequests()).toEqual([]);
    }
  });

  it('a separate warm-up run on the same cache directory serves a server started afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warm-cache-'));
    closing.push(async () => rmSync(dir, { recursive: true, force: true }));
    const cron = target({ cacheDir: dir });
    const outcome = await warmUp(cron, parseWarmList('user-activity:last_7_days,dau-count:last_90_days'));
    expect(outcome.ran && outcome.results.every((r) => !r.error && r.pages > 0)).toBe(true);
    await cron.close();

    sim.clearRequests();
    const server = target({ cacheDir: dir });
    const answers = await askAll(server.client, [ASKED[0]!, ASKED[6]!]);
    for (const a of answers) {
      expect(a.isError).toBe(false);
      expect(a.structured.freshness.from_cache).toBe(true);
    }
    expect(apiRequests()).toEqual([]);
  });

  it('an item that fails is reported and does not stop the others', async () => {
    const t = target();
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: '500', count: 10 });
    const outcome = await warmUp(t, parseWarmList('dau-count:last_7_days,cost:last_7_days'));
    sim.clearFaults();
    expect(outcome.ran).toBe(true);
    if (!outcome.ran) return;
    expect(outcome.results[0]!.error).toBeTruthy();
    expect(outcome.results[1]).toMatchObject({ name: 'cost:last_7_days', fromCache: false });
    expect(outcome.results[1]!.error).toBeUndefined();
  });
});

describe('the warm list', () => {
  it('reads kind:range names, trimmed and without repeats', () => {
    expect(
      parseWarmList(' cost-by-user:last_30_days , dau-count:last_90_days,cost-by-user:last_30_days').map((i) => i.name),
    ).toEqual(['cost-by-user:last_30_days', 'dau-count:last_90_days']);
  });

  it.each(['', ',', 'user-activity', 'user-activity:yesterday', 'frobs:last_7_days', 'cost:last_7_days:x'])(
    'refuses %j, naming the kinds and ranges',
    (text) => {
      expect(() => parseWarmList(text)).toThrow(/--warm-list \/ ANALYTICS_WARM_LIST/);
    },
  );
});
