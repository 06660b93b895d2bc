import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config.js';
import { syncCommandBody } from '../../src/commands/sync.js';
import { attachHistory, type RuntimeHistory } from '../../src/history/serving/runtime-history.js';
import { createServer } from '../../src/mcp/server.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { SPIKE } from '../../src/simulator/data/catalog.js';
import { serveHttp } from '../../src/transports/http.js';
import { formatDay } from '../../src/util/utc-date.js';
import { ANOMALIES_URI, onAnomalies } from '../../src/insights/anomaly-feed.js';
import { SyncScheduler } from '../../src/warm/sync-schedule.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { harness, type Harness } from '../helpers/mcp.js';
import { freePort } from '../helpers/redis-server.js';
import { NOW } from '../helpers/sim.js';

// 40 days: the last 12 complete days have their 28-day baselines, the planted spike among them.
const SETTINGS = { historyDays: 40, historyMonths: 0, syncShare: 1 };

let h: Harness;
let dir: string;
const opened: RuntimeHistory[] = [];

async function store(name: string): Promise<RuntimeHistory> {
  const history = await attachHistory(
    h.upstream,
    { history: join(dir, name), cacheDir: undefined, demo: false },
    h.deps.log,
  );
  opened.push(history!);
  return history!;
}

/** The JSON of anomalies://latest, as a client reads it. */
async function feedOf(client: Client): Promise<any> {
  const { contents } = await client.readResource({ uri: ANOMALIES_URI });
  return JSON.parse((contents[0] as { text: string }).text);
}

const spike = () => ({
  kind: 'identity_credits',
  service_account_name: SPIKE.account,
  date: formatDay(h.sim.state.org.anchorDay - SPIKE.daysBeforeAnchor),
});

/** `org-analytics-mcp sync` on a store: its exit code, its progress lines and what it printed. */
async function syncCommand(history: RuntimeHistory, settings: Record<string, unknown>) {
  const config = configSchema.parse({ token: 'rw', baseUrl: h.sim.url, ...settings });
  const runtime = { config, client: h.upstream, pii: h.deps.pii, secrets: [] } as unknown as Runtime;
  const [said, printed]: [string[], string[]] = [[], []];
  const code = await syncCommandBody(
    runtime,
    history,
    new AbortController().signal,
    (line) => said.push(line),
    (text) => printed.push(text),
  );
  return { code, said: said.join('\n'), printed: printed.join('') };
}

beforeAll(async () => {
  h = await harness({ sim: { users: 120 } });
  dir = mkdtempSync(join(tmpdir(), 'anomaly-feed-'));
});
afterAll(async () => {
  for (const history of opened) await history.close();
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('anomalies://latest, the changelog of what the sync found', () => {
  it('subscribed clients of both eras hear of new anomalies after a server sync (--sync), and read them', async () => {
    const history = await store('server.sqlite');
    const deps = {
      ...h.deps,
      history: { open: async () => history, close: () => history.close(), digests: history.source.digest },
    };
    // A 2025-era client on stdio's footing (resources/subscribe)...
    const server = createServer(deps);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const legacy = new Client({ name: 'subscriber', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await legacy.connect(clientSide);
    // ...and a 2026-07-28 client over Streamable HTTP (subscriptions/listen), as --http serves it.
    const port = await freePort();
    const config = configSchema.parse({ token: 'rw', baseUrl: h.sim.url, port, ...SETTINGS });
    const http = await serveHttp((_caller, onlyTool) => createServer(deps, onlyTool), config, h.deps.log, {
      updates: (notify) => onAnomalies(h.upstream, () => notify(ANOMALIES_URI)),
    });
    const modern = new Client({ name: 'listener', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    try {
      const heard: Record<string, string[]> = { legacy: [], modern: [] };
      for (const [name, client] of [
        ['legacy', legacy],
        ['modern', modern],
      ] as const)
        client.setNotificationHandler('notifications/resources/updated', (n) => void heard[name]!.push(n.params.uri));
      const { resources } = await legacy.listResources();
      expect(resources.map((r) => r.uri)).toContain(ANOMALIES_URI);
      expect(await feedOf(legacy)).toMatchObject({
        anomalies: [],
        note: expect.stringMatching(/No sync has published/),
      });
      await legacy.subscribeResource({ uri: ANOMALIES_URI });
      const listening = await modern.listen({ resourceSubscriptions: [ANOMALIES_URI] });

      const scheduler = new SyncScheduler(new ManualClock(Date.parse(NOW)), () => 0);
      await scheduler.start({ client: h.upstream, config, log: h.deps.log, history });
      await scheduler.stop();
      await expect.poll(() => heard).toEqual({ legacy: [ANOMALIES_URI], modern: [ANOMALIES_URI] });
      await listening.close();

      for (const client of [legacy, modern]) {
        const feed = await feedOf(client);
        expect(feed.anomalies).toContainEqual(expect.objectContaining(spike()));
        expect(feed).toMatchObject({ start_date: '2026-10-22', end_date: '2026-11-20', method: expect.any(String) });
      }
    } finally {
      await modern.close();
      await http.close();
      await legacy.close();
      await server.close();
    }
  }, 60_000);

  it('`sync` prints the new anomalies on stdout once: a second run prints nothing', async () => {
    const history = await store('cron.sqlite');
    const run = () => syncCommand(history, SETTINGS);
    const first = await run();
    expect(first.code, first.said).toBe(0);
    expect(first.printed).toMatch(/^\d+ new anomal(y|ies) \(/);
    const line = first.printed.split('\n').find((l) => l.includes(`${SPIKE.account} (sa)`));
    expect(line).toMatch(new RegExp(`^identity_credits \\| ${SPIKE.account} \\(sa\\) \\| ${spike().date} \\|`));
    // Progress and the outcome stay on stderr's side.
    expect(first.printed).not.toMatch(/done in/);
    const second = await run();
    expect(second.code, second.said).toBe(0);
    expect(second.printed).toBe('');
  }, 60_000);

  it('`sync` with fewer days than its months reach reads nothing live to look for anomalies', async () => {
    // The daily active counts are kept as deep as the months reach (62 days), credits and cost for 5 days only:
    // no day has its 28-day baselines of credits, so there is nothing to judge, and nothing to fetch for it.
    const history = await store('shallow.sqlite');
    const before = h.sim.requests().length;
    const { code, said, printed } = await syncCommand(history, { historyDays: 5, historyMonths: 2 });
    expect(code, said).toBe(0);
    expect(printed).toBe('');
    const asked = h.sim.requests().slice(before);
    const of = (part: string) => asked.filter((r) => r.path.includes(part)).length;
    // The sync's own: a window of 5 days and 2 months each (a page or two apiece at 120 people).
    expect(of('credit-usage')).toBeLessThanOrEqual(6);
    expect(of('cost-analytics')).toBeLessThanOrEqual(6);
  }, 60_000);
});
