import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config.js';
import { syncCommandBody } from '../../src/history/sync-command.js';
import { attachHistory, type RuntimeHistory } from '../../src/history/runtime-history.js';
import { createServer } from '../../src/mcp/server.js';
import type { Runtime } from '../../src/runtime.js';
import { SPIKE } from '../../src/simulator/data/catalog.js';
import { formatDay } from '../../src/util/utc-date.js';
import { SyncScheduler } from '../../src/warm/sync-schedule.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { harness, type Harness } from '../helpers/mcp.js';
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

const spike = () => ({
  kind: 'identity_credits',
  service_account_name: SPIKE.account,
  date: formatDay(h.sim.state.org.anchorDay - SPIKE.daysBeforeAnchor),
});

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
  it('a subscribed client hears of new anomalies after a server sync (--sync), and reads them', async () => {
    const history = await store('server.sqlite');
    const server = createServer({ ...h.deps, history });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'subscriber', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(clientSide);
    try {
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('anomalies://latest');
      const before = JSON.parse((await client.readResource({ uri: 'anomalies://latest' })).contents[0]!.text as string);
      expect(before).toMatchObject({ anomalies: [], note: expect.stringMatching(/No sync has published/) });
      await client.subscribeResource({ uri: 'anomalies://latest' });

      const scheduler = new SyncScheduler(new ManualClock(Date.parse(NOW)), () => 0);
      const config = configSchema.parse({ token: 'rw', baseUrl: h.sim.url, ...SETTINGS });
      await scheduler.start({ client: h.upstream, config, log: h.deps.log, history });
      await scheduler.stop();
      await expect.poll(() => updated).toEqual(['anomalies://latest']);

      const feed = JSON.parse((await client.readResource({ uri: 'anomalies://latest' })).contents[0]!.text as string);
      expect(feed.anomalies).toContainEqual(expect.objectContaining(spike()));
      expect(feed).toMatchObject({ start_date: '2026-10-22', end_date: '2026-11-20', method: expect.any(String) });
    } finally {
      await client.close();
      await server.close();
    }
  }, 60_000);

  it('`sync` prints the new anomalies on stdout once: a second run prints nothing', async () => {
    const history = await store('cron.sqlite');
    const config = configSchema.parse({ token: 'rw', baseUrl: h.sim.url, ...SETTINGS });
    const runtime = { config, client: h.upstream, pii: h.deps.pii, secrets: [] } as unknown as Runtime;
    const run = async () => {
      const [said, printed]: [string[], string[]] = [[], []];
      const code = await syncCommandBody(
        runtime,
        history,
        new AbortController().signal,
        (line) => said.push(line),
        (text) => printed.push(text),
      );
      return { code, said: said.join('\n'), printed: printed.join('') };
    };
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
});
