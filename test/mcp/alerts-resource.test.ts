import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertCandidate } from '../../src/domain/alerts.js';
import { attachHistory, type RuntimeHistory } from '../../src/history/serving/runtime-history.js';
import { settle } from '../../src/history/store/outbox/outbox-claim.js';
import { queueAlerts } from '../../src/history/store/outbox/outbox-queue.js';
import { ALERTS_URI } from '../../src/mcp/resources/alerts-resource.js';
import { createServer } from '../../src/mcp/server.js';
import { harness, type Harness } from '../helpers/mcp.js';

let h: Harness;
let dir: string;
let history: RuntimeHistory;
let client: Client;
let closeServer: () => Promise<void>;

const budget = (i: number): AlertCandidate => ({
  type: 'budget.threshold',
  dedupKey: `budget.threshold:u:person${i}@northwind.example:80:2026-11`,
  data: {
    user_email: `person${i}@northwind.example`,
    resource: 'usd',
    limit: '250',
    used: `${200 + i}.50`,
    threshold: '80',
  },
  scope: { identities: [`u:person${i}@northwind.example`] },
});

async function read(): Promise<any> {
  const { contents } = await client.readResource({ uri: ALERTS_URI });
  return JSON.parse((contents[0] as { text: string }).text);
}

beforeAll(async () => {
  // A token long enough to be scrubbed (short ones are not looked for).
  h = await harness({ sim: { users: 20, token: 'alerts-resource-token-4f9c2a' }, config: { pii: 'pseudonymous' } });
  dir = mkdtempSync(join(tmpdir(), 'alerts-resource-'));
  history = (await attachHistory(
    h.upstream,
    { history: join(dir, 'h.sqlite'), cacheDir: undefined, demo: false },
    h.deps.log,
  ))!;
  const server = createServer({
    ...h.deps,
    history: { open: async () => history, close: () => history.close(), digests: history.source.digest },
  });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'alerts-reader', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(clientSide);
  closeServer = () => server.close();
});
afterAll(async () => {
  await client?.close();
  await closeServer?.();
  await history?.close();
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('alerts://recent', () => {
  it('is listed, and says how alerts come before there are any', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(ALERTS_URI);
    expect(await read()).toEqual({ alerts: [], note: expect.stringMatching(/--alerts-file/) });
  });

  it('the last 100 alerts, newest first, each with its delivery state; no email and no secret in it', async () => {
    const store = history.source.store;
    const t0 = Date.parse('2026-11-21T04:00:00Z');
    const destinations = [{ name: 'hook', events: ['*'] }];
    for (let i = 0; i < 120; i++) await queueAlerts(store, [budget(i)], destinations, { now: t0 + i * 1000 });
    const all = await read();
    expect(all.alerts).toHaveLength(100);
    const used = all.alerts.map((a: any) => Number.parseFloat(a.data.used));
    expect(used).toEqual(Array.from({ length: 100 }, (_, k) => 200 + 119 - k + 0.5));
    expect(all.alerts[0]).toMatchObject({
      type: 'budget.threshold',
      destination: 'hook',
      state: 'queued',
      attempts: 0,
      decided_at: new Date(t0 + 119_000).toISOString(),
      next_attempt_at: new Date(t0 + 119_000).toISOString(),
      data: { resource: 'usd', limit: '250', used: '319.50', threshold: '80' },
    });
    expect(all.alerts[0].id).toMatch(/^msg_/);

    const [newest, second] = all.alerts;
    await settle(store, [newest.id], { outcome: 'delivered' }, t0 + 200_000);
    await settle(
      store,
      [second.id],
      { outcome: 'failed', error: `401 from the receiver: bad token ${h.deps.config.token}` },
      t0 + 200_000,
    );
    const after = await read();
    expect(after.alerts[0]).toMatchObject({
      state: 'delivered',
      attempts: 1,
      delivered_at: new Date(t0 + 200_000).toISOString(),
    });
    expect(after.alerts[0].next_attempt_at).toBeUndefined();
    expect(after.alerts[1]).toMatchObject({ state: 'failed', attempts: 1, last_error: expect.stringMatching(/^401 /) });
    const text = JSON.stringify(after);
    expect(text.includes(h.deps.config.token!), 'the token is scrubbed').toBe(false);
    // --pii pseudonymous: what the resource shows carries pseudonyms.
    expect(/person\d+@/.test(text), 'no email').toBe(false);
    expect(after.alerts[0].data.user_email).toMatch(/^user-[0-9a-f]{12}@northwind\.example$/);
  });
});
