import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueAfterSync } from '../../src/alerts/after-sync.js';
import { syncCommandBody } from '../../src/commands/sync.js';
import { DirectoryState } from '../../src/directory/directory-state.js';
import { orgDirectory } from '../../src/history/serving/org-directory.js';
import { recentAlerts } from '../../src/history/store/outbox/outbox-read.js';
import { configSchema } from '../../src/config/config.js';
import { attachHistory, type RuntimeHistory } from '../../src/history/serving/runtime-history.js';
import { ALERTS_URI } from '../../src/mcp/resources/alerts-resource.js';
import { createServer } from '../../src/mcp/server.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { SPIKE } from '../../src/simulator/data/catalog.js';
import { formatDay } from '../../src/util/utc-date.js';
import { SyncScheduler } from '../../src/warm/sync-schedule.js';
import { receiver, verified, WEBHOOK_SECRET, type Receiver } from '../helpers/alerts/receivers.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { harness, truth, truthAll, type Harness } from '../helpers/mcp.js';
import { NOW, TODAY, YESTERDAY, addDays } from '../helpers/sim.js';
import { idOf } from '../helpers/tools.js';

// 40 days: the planted spike has its 28-day baseline (see test/insights/anomaly-feed.test.ts).
const SETTINGS = { historyDays: 40, historyMonths: 0, syncShare: 1 };
const SECRET_ENV = 'AFTER_SYNC_TEST_WEBHOOK_SECRET';

let h: Harness;
let dir: string;
let hook: Receiver;
let alertsFile: string;
/** The person whose November use crossed the limit the test sets: the month's use less 1. */
let crosser: { email: string; used: number };
const opened: RuntimeHistory[] = [];

async function store(name: string): Promise<RuntimeHistory> {
  const where = { history: join(dir, name), cacheDir: undefined, demo: false };
  const history = (await attachHistory(h.upstream, where, h.deps.log))!;
  opened.push(history);
  return history;
}

/** `org-analytics-mcp sync` with --alerts-file: its exit code and what it said. */
async function syncCommand(history: RuntimeHistory) {
  const config = configSchema.parse({ token: h.sim.token, baseUrl: h.sim.url, alertsFile, ...SETTINGS });
  const runtime = { config, client: h.upstream, pii: h.deps.pii, log: h.deps.log, secrets: [] } as unknown as Runtime;
  const said: string[] = [];
  const code = await syncCommandBody(
    runtime,
    history,
    new AbortController().signal,
    (line) => said.push(line),
    () => {},
  );
  return { code, said: said.join('\n') };
}

/** What the receiver got since `from`, verified as a Standard Webhooks receiver does. */
const got = (from = 0) => hook.received.slice(from).map((r) => verified(r));

const spikeDay = () => formatDay(h.sim.state.org.anchorDay - SPIKE.daysBeforeAnchor);

beforeAll(async () => {
  h = await harness({ sim: { users: 120, token: 'after-sync-test-token' } });
  dir = mkdtempSync(join(tmpdir(), 'after-sync-'));
  hook = await receiver();
  process.env[SECRET_ENV] = WEBHOOK_SECRET;
  alertsFile = join(dir, 'alerts.json');
  const destination = { name: 'hook', kind: 'webhook', url: hook.url, secret_env: SECRET_ENV, events: ['*'] };
  writeFileSync(alertsFile, JSON.stringify({ destinations: [destination] }));
  // November's credits through today, from the simulator: the heaviest person's limit set just below them.
  const used = new Map<string, number>();
  for (const r of await truthAll(h.sim, 'credit-usage-by-user', 'records', {
    start_date: '2026-11-01',
    end_date: TODAY,
  }))
    used.set(idOf(r), (used.get(idOf(r)) ?? 0) + r.credits_consumed);
  const [email, n] = [...used].filter(([id]) => id.includes('@')).sort((a, b) => b[1] - a[1])[0]!;
  crosser = { email, used: n };
  const limit = String(n - 1);
  const override = { user_email: email, resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED', period: 'BUDGET_PERIOD_MONTHLY' };
  const set = await truth(h.sim, 'set-user-budget-overrides', {}, { overrides: [{ ...override, config: { limit } }] });
  expect(set.failures).toEqual([]);
}, 60_000);
afterAll(async () => {
  delete process.env[SECRET_ENV];
  for (const history of opened) await history.close();
  await hook?.close();
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('alerts after a sync, delivered to a real receiver', () => {
  let cron: RuntimeHistory;

  it('`sync` alerts the planted anomaly and the budget crossing, signed; a second sync queues nothing new', async () => {
    cron = await store('cron.sqlite');
    const first = await syncCommand(cron);
    expect(first.code, first.said).toBe(0);
    const alerts = got();
    expect(first.said).toMatch(new RegExp(`alerts: ${alerts.length} queued; ${alerts.length} delivered, 0 to retry`));
    const types = alerts.map((a) => a.body.type);
    // A whole sync (no failure, no lag) of a Saturday: anomalies and budgets only.
    expect(new Set(types)).toEqual(new Set(['anomaly.detected', 'budget.threshold']));
    const spike = alerts.find(
      (a) =>
        a.body.type === 'anomaly.detected' &&
        a.body.data.anomalies.some((x: any) => x.service_account_name === SPIKE.account && x.date === spikeDay()),
    );
    expect(spike, JSON.stringify(types)).toBeDefined();
    expect(spike!.body.data.anomalies).toContainEqual(
      expect.objectContaining({
        kind: 'identity_credits',
        service_account_name: SPIKE.account,
        ratio: expect.any(Number),
      }),
    );
    const budget = alerts.filter((a) => a.body.type === 'budget.threshold' && a.body.data.user_email === crosser.email);
    expect(budget.map((a) => a.body.data)).toEqual([
      expect.objectContaining({
        resource: 'credits',
        limit: String(crosser.used - 1),
        used: String(crosser.used),
        projected: expect.stringMatching(/^\d+$/),
        threshold: '100',
        month: '2026-11',
      }),
    ]);
    // The body is the Standard Webhooks shape, and each alert has its own id.
    for (const a of alerts) expect(Object.keys(a.body).sort()).toEqual(['data', 'timestamp', 'type']);
    // The API names no organization: without --alerts-organization, its host does.
    for (const a of alerts) expect(a.body.data.organization).toBe(new URL(h.sim.url).host);
    expect(new Set(alerts.map((a) => a.id)).size).toBe(alerts.length);

    const before = hook.received.length;
    const second = await syncCommand(cron);
    expect(second.code, second.said).toBe(0);
    expect(hook.received.length).toBe(before);
    expect(second.said).not.toMatch(/alerts:/);
  }, 90_000);

  it('alerts://recent, read by an MCP client, lists them as delivered', async () => {
    const server = createServer({
      ...h.deps,
      history: { open: async () => cron, close: async () => {}, digests: cron.source.digest },
    });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'alerts', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(clientSide);
    try {
      const { contents } = await client.readResource({ uri: ALERTS_URI });
      const feed = JSON.parse((contents[0] as { text: string }).text);
      expect(feed.alerts.length).toBe(Math.min(100, hook.received.length));
      expect(new Set(feed.alerts.map((a: any) => a.state))).toEqual(new Set(['delivered']));
      const ids = new Set(got().map((a) => a.id));
      for (const a of feed.alerts) expect(ids.has(a.id)).toBe(true);
      expect(feed.alerts).toContainEqual(
        expect.objectContaining({
          type: 'budget.threshold',
          destination: 'hook',
          attempts: 1,
          dedup_key: `budget.threshold:u:${crosser.email}:100:2026-11`,
        }),
      );
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a destination's teams take the alerts of their members, as the directory says", async () => {
    const file = join(dir, 'org.csv');
    writeFileSync(file, `user_email,team\n${crosser.email},Finance/FinOps\n`);
    const state = new DirectoryState(h.deps.log);
    state.load(file);
    const org = orgDirectory(state, undefined, { minGroupSize: 1, log: h.deps.log });
    const finops = {
      ...({ name: 'finops', kind: 'webhook', url: new URL(hook.url), secret: WEBHOOK_SECRET } as const),
      ...{ events: ['budget.threshold'], teams: ['Finance'] },
    };
    const target = { client: h.upstream, config: h.deps.config, log: h.deps.log, history: cron };
    try {
      expect(await queueAfterSync({ ...target, destinations: [finops], org }, [], new AbortController().signal)).toBe(
        1,
      );
      // Once queued, the key is held: the next sync queues nothing for it.
      expect(await queueAfterSync({ ...target, destinations: [finops] }, [], new AbortController().signal)).toBe(0);
      const recent = await recentAlerts(cron.source.store);
      // Others crossed thresholds too (the hook, with no filter, has theirs): the team's destination has its member's.
      expect(recent.filter((a) => a.destination === 'hook' && a.type === 'budget.threshold').length).toBeGreaterThan(1);
      const queued = recent.filter((a) => a.destination === 'finops');
      expect(queued.map((a) => a.dedupKey)).toEqual([`budget.threshold:u:${crosser.email}:100:2026-11`]);
    } finally {
      state.close();
    }
  });

  it('what no destination wants is not read: no budget overrides asked for a destination of stale data', async () => {
    const stale = { name: 'stale', kind: 'slack', url: new URL(hook.url), events: ['data.stale'] } as const;
    const target = { client: h.upstream, config: h.deps.config, log: h.deps.log, history: cron };
    const before = h.sim.requests().length;
    expect(await queueAfterSync({ ...target, destinations: [stale] }, [], new AbortController().signal)).toBe(0);
    expect(
      h.sim
        .requests()
        .slice(before)
        .map((r) => r.path),
    ).toEqual([]);
  });

  it('a --sync server alerts after its sync too, with --pii pseudonymous applied to what the alerts carry', async () => {
    const history = await store('server.sqlite');
    const config = configSchema.parse({
      ...{ token: h.sim.token, baseUrl: h.sim.url, alertsFile, pii: 'pseudonymous' },
      ...SETTINGS,
    });
    const pii = new Pseudonymizer('pseudonymous', 'after-sync-pseudonyms');
    const from = hook.received.length;
    const scheduler = new SyncScheduler(new ManualClock(Date.parse(NOW)), () => 0);
    await scheduler.start({ client: h.upstream, config, log: h.deps.log, history, pii, secrets: [] });
    await scheduler.stop();
    const alerts = got(from);
    expect(alerts.some((a) => a.body.type === 'anomaly.detected')).toBe(true);
    // The crosser's alert, under their pseudonym: the runtime's pseudonyms are the answers'.
    const pseudonym = pii.email(crosser.email);
    expect(pseudonym).toMatch(/^user-[0-9a-f]{12}@/);
    const budget = alerts.filter((a) => a.body.type === 'budget.threshold' && a.body.data.user_email === pseudonym);
    expect(budget.map((a) => a.body.data.threshold)).toEqual(['100']);
    for (const a of alerts.filter((x) => x.body.type === 'budget.threshold' && x.body.data.user_email))
      expect(a.body.data.user_email).toMatch(/^user-[0-9a-f]{12}@/);
    const bodies = hook.received.slice(from).map((r) => r.body);
    expect(bodies.some((b) => b.includes(crosser.email))).toBe(false);
  }, 90_000);

  it('a sync that fails 3 days later: sync.failed and data.stale, once a day', async () => {
    h.sim.clock.advance(3 * 86_400_000);
    try {
      const from = hook.received.length;
      h.sim.injectFault({ path: '/analytics/v0/dau-count', kind: '500', count: 3 });
      const failed = await syncCommand(cron);
      expect(failed.code, failed.said).toBe(1);
      const alerts = got(from).filter((a) => a.body.type === 'sync.failed' || a.body.type === 'data.stale');
      expect(alerts.map((a) => a.body)).toEqual([
        {
          type: 'sync.failed',
          timestamp: expect.any(String),
          data: expect.objectContaining({ failed_requests: 1, errors: [expect.stringMatching(/^dau-count /)] }),
        },
        {
          type: 'data.stale',
          timestamp: expect.any(String),
          data: {
            organization: new URL(h.sim.url).host,
            stored_through: YESTERDAY,
            latest_published: addDays(YESTERDAY, 3),
            days_behind: 3,
          },
        },
      ]);
      expect(got(from).every((a) => !JSON.stringify(a.body).includes(h.sim.token))).toBe(true);
      // Failing again the same day says nothing new.
      const again = hook.received.length;
      h.sim.injectFault({ path: '/analytics/v0/dau-count', kind: '500', count: 3 });
      expect((await syncCommand(cron)).code).toBe(1);
      expect(got(again).filter((a) => a.body.type === 'sync.failed' || a.body.type === 'data.stale')).toEqual([]);
    } finally {
      h.sim.clock.set(NOW);
    }
  }, 90_000);
});
