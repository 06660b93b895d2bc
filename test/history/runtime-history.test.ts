import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredHistory } from '../../src/history/serving/runtime-history.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { credentialFingerprint } from '../../src/upstream/credential.js';
import { dauCount } from '../../src/upstream/endpoints/dau-count.js';
import { clientFor } from '../helpers/client.js';
import { NOW } from '../helpers/sim.js';
import { freePort, tcpProxy, type Proxy } from '../helpers/tcp-proxy.js';

const PG_URL = process.env.HISTORY_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function sql(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

describe('a store not reachable at start (PostgreSQL down): live, then the store once it is back', () => {
  let sim: Simulator;
  let proxy: Proxy | undefined;
  const schema = () => `org_analytics_${credentialFingerprint(sim.token)}`;
  beforeAll(async () => {
    sim = await startSimulator({
      users: 30,
      now: NOW,
      rateLimit: false,
      token: `late-pg-${process.pid}-${Date.now()}`,
    });
  });
  afterAll(async () => {
    proxy?.close();
    await sql(`DROP SCHEMA IF EXISTS "${schema()}" CASCADE`);
    await sim?.close();
  });

  it('answers live and says so once; after the retry delay the first use opens the store, and says it is back', async () => {
    const port = await freePort();
    const url = new URL(PG_URL);
    url.host = `127.0.0.1:${port}`;
    const lines: string[] = [];
    const log = createLogger(
      'info',
      (t) => t,
      (line) => lines.push(line),
    );
    const client = clientFor(sim);
    const lazy = configuredHistory(
      client,
      { history: { kind: 'postgres', url: url.toString() }, cacheDir: undefined, demo: false, retryMs: 300 },
      log,
    )!;
    try {
      expect(await lazy.open()).toBeUndefined();
      const asked = { days: { start: 20_400, end: 20_406 } };
      expect((await client.list(dauCount, asked)).freshness.source).toBe('live');
      // Within the delay, nothing is tried: the same answer, no new attempt.
      expect(await lazy.open()).toBeUndefined();
      proxy = await tcpProxy(new URL(PG_URL), port);
      expect(await lazy.open(), 'not before the delay').toBeUndefined();
      await new Promise((r) => setTimeout(r, 350));
      // A request is a use: it opens the store, and its live answer is kept as it passes.
      const later = { days: { start: 20_410, end: 20_416 } };
      expect((await client.list(dauCount, later)).freshness.source).toBe('live');
      const history = await lazy.open();
      expect(history?.source.store.engine).toBe('postgres');
      for (let i = 0; i < 100 && (await history!.source.store.blocks('dau-count', 0, 1e6)).length < 7; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect((await client.list(dauCount, later)).freshness.source).toBe('history');
      expect(lines.filter((l) => l.includes('cannot be used'))).toHaveLength(1);
      expect(lines.filter((l) => l.includes('the history store is back'))).toHaveLength(1);
    } finally {
      await lazy.close();
      await client.close();
    }
  });
});
