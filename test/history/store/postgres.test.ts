import { hostname } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryStore } from '../../../src/history/store/history-store.js';
import { SCHEMA_VERSION } from '../../../src/history/store/migrations.js';
import { openHistory } from '../../../src/history/store/open-history.js';
import { safeUrl } from '../../../src/history/store/open-postgres.js';
import type { RuntimeHistory } from '../../../src/history/serving/runtime-history.js';
import { SyncLock } from '../../../src/history/sync/sync-lock.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { credentialFingerprint } from '../../../src/upstream/credential.js';
import { costAnalytics } from '../../../src/upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../../src/upstream/endpoints/credit-usage-by-user.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';
import { storedHarness, type StoredHarness } from '../../helpers/history.js';
import { NOW } from '../../helpers/sim.js';

/** The real PostgreSQL every machine runs (.ci/run starts it): user postgres, trust auth. */
const PG_URL = process.env.HISTORY_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A token of its own per test, hence a schema of its own: org_analytics_<fingerprint of the token>. */
const tokenOf = (name: string) => `pg-${name}-${process.pid}-${Date.now()}`;
const schemaOf = (token: string) => `org_analytics_${credentialFingerprint(token)}`;

async function sql<T = Record<string, unknown>>(text: string, values: unknown[] = [], url = PG_URL): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, values)).rows as T[];
  } finally {
    await c.end();
  }
}
const dropSchema = (token: string) => sql(`DROP SCHEMA IF EXISTS "${schemaOf(token)}" CASCADE`);

/** Rows in a stable order, so that two answers compare whatever order their rows came in. */
const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
const settings = { historyDays: 10, historyMonths: 2 };

describe('the history store on PostgreSQL (simulator over HTTP, a schema per test)', () => {
  describe('a sync, then answers from the store (a database of its own)', () => {
    const token = tokenOf('sync');
    let sim: Simulator;
    let stored: StoredHarness;
    let client: AnalyticsClient;
    let history: RuntimeHistory;

    beforeAll(async () => {
      sim = await startSimulator({ users: 200, now: NOW, rateLimit: false, token });
      stored = await storedHarness({ ...settings, engine: 'postgres' }, { simulator: sim });
      ({ upstream: client, history } = stored);
    }, 60_000);
    afterAll(async () => {
      await stored?.close();
      await sim?.close();
    });

    it('keeps its tables in the schema named after the credential', async () => {
      expect(history.source.store.engine).toBe('postgres');
      const tables = await sql<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schemaOf(token)],
        stored.where,
      );
      expect(tables.map((t) => t.table_name)).toEqual([
        'alerts_outbox',
        'directory_memberships',
        'history_blocks',
        'history_lock',
        'history_meta',
        'history_people',
        'history_rows',
      ]);
      const [blocks] = await sql<{ n: string }>(
        `SELECT count(*) AS n FROM "${schemaOf(token)}".history_blocks`,
        [],
        stored.where,
      );
      expect(Number(blocks!.n)).toBeGreaterThan(10);
    });

    it.each([
      ['user activity, last 7 days', userActivity, { range: 'last_7_days' }],
      ['user activity, previous month', userActivity, { range: 'previous_month' }],
      ['credits by date, last 7 days', creditUsageByUser, { range: 'last_7_days', by_date: true }],
      ['credits by model, previous month', creditUsageByUser, { range: 'previous_month', by_model: true }],
      ['cost by user', costAnalytics, { range: 'last_7_days', group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] }],
    ] as const)('answers %s from the store without a request, as the upstream does', async (_name, listing, args) => {
      const before = sim.requests().length;
      const stored = await client.list(listing as never, args as never);
      expect(sim.requests().length).toBe(before);
      expect(stored.freshness.source).toBe('history');
      const live = await client.list(listing as never, args as never, { liveOnly: true });
      expect(sorted(stored.data)).toEqual(sorted(live.data));
      expect([stored.start_date, stored.end_date]).toEqual([live.start_date, live.end_date]);
    });

    it('a second sync finds nothing to fetch', async () => {
      const outcome = await syncOnce(client, history.source, { ...settings, syncShare: 1 }, {});
      expect(outcome.ran && outcome.result.requests).toBe(0);
    });
  });

  describe('migrations', () => {
    const token = tokenOf('migrate');
    const stores: HistoryStore[] = [];
    afterAll(async () => {
      for (const s of stores) await s.close();
      await dropSchema(token);
    });
    const open = async () => {
      const store = (await openHistory({ kind: 'postgres', url: PG_URL }, credentialFingerprint(token)))!;
      stores.push(store);
      return store;
    };

    it('two servers opening a new schema at once both get it, migrated once', async () => {
      const [a, b, c] = await Promise.all([open(), open(), open()]);
      expect([a, b, c].map((s) => s.engine)).toEqual(['postgres', 'postgres', 'postgres']);
      expect(await sql(`SELECT key, value FROM "${schemaOf(token)}".history_meta`)).toEqual([
        { key: 'schema_version', value: String(SCHEMA_VERSION) },
      ]);
    });

    it('opening again keeps what is stored', async () => {
      const [first] = stores;
      const block = {
        dataset: 'probe',
        start: 100,
        end: 100,
        grain: 'day' as const,
        fetched_at: NOW,
        expires_at: null,
      };
      await first!.put([{ ...block, items: [{ user_email: 'a@example.com', n: '9007199254740993' }] }]);
      const again = await open();
      expect(await again.rows('probe', 100, 100)).toEqual([{ user_email: 'a@example.com', n: '9007199254740993' }]);
      expect(await sql(`SELECT value FROM "${schemaOf(token)}".history_meta`)).toEqual([
        { value: String(SCHEMA_VERSION) },
      ]);
    });

    it('a schema written by a newer version is left alone, with a clear message', async () => {
      await sql(`UPDATE "${schemaOf(token)}".history_meta SET value = '999' WHERE key = 'schema_version'`);
      await expect(open()).rejects.toThrow(/schema version 999, newer than this version/);
      expect(await sql(`SELECT value FROM "${schemaOf(token)}".history_meta`)).toEqual([{ value: '999' }]);
      await sql(`UPDATE "${schemaOf(token)}".history_meta SET value = $1`, [String(SCHEMA_VERSION)]);
    });
  });

  describe('the sync lock, across two connections', () => {
    const token = tokenOf('lock');
    let one: HistoryStore;
    let two: HistoryStore;
    beforeAll(async () => {
      one = (await openHistory({ kind: 'postgres', url: PG_URL }, credentialFingerprint(token)))!;
      two = (await openHistory({ kind: 'postgres', url: PG_URL }, credentialFingerprint(token)))!;
    });
    afterAll(async () => {
      await one?.close();
      await two?.close();
      await dropSchema(token);
    });

    it('refuses a second syncer while the first holds it, and lets it in once released', async () => {
      const first = new SyncLock(one);
      expect(await first.acquire()).toEqual({ ok: true });
      const second = new SyncLock(two);
      expect(await second.acquire()).toEqual({ ok: false, holder: { host: hostname(), pid: process.pid } });
      await first.release();
      expect(await second.acquire()).toEqual({ ok: true });
      await second.release();
    });

    it('two syncers racing for it: exactly one gets it', async () => {
      const locks = [new SyncLock(one), new SyncLock(two), new SyncLock(one), new SyncLock(two)];
      const got = await Promise.all(locks.map((l) => l.acquire()));
      expect(got.filter((g) => g.ok)).toHaveLength(1);
      await Promise.all(locks.map((l) => l.release()));
    });

    it("refuses while the holder's session lives, and takes over at once when it ends, on any host", async () => {
      const holder = new SyncLock(two);
      expect(await holder.acquire()).toEqual({ ok: true });
      // It runs elsewhere and beats: neither its pid nor its heartbeat can tell that it is gone.
      await sql(`UPDATE "${schemaOf(token)}".history_lock SET host = 'elsewhere', pid = 4242`);
      expect(await new SyncLock(one).acquire()).toEqual({ ok: false, holder: { host: 'elsewhere', pid: 4242 } });
      // Its session ends (killed, or its host gone): the server frees what the session held.
      const ended = await sql<{ ended: boolean }>(
        'SELECT pg_terminate_backend(pid, 5000) AS ended FROM pg_stat_activity WHERE application_name = $1',
        [`org-analytics-mcp sync ${schemaOf(token)}`],
      );
      expect(ended).toEqual([{ ended: true }]);
      const next = new SyncLock(one);
      expect(await next.acquire()).toEqual({ ok: true });
      expect(await sql(`SELECT host, pid FROM "${schemaOf(token)}".history_lock`)).toEqual([
        { host: hostname(), pid: process.pid },
      ]);
      await next.release();
      await holder.release();
    });

    it('a row left by a holder whose session is gone does not hold anyone back, whatever its heartbeat', async () => {
      await sql(
        `INSERT INTO "${schemaOf(token)}".history_lock (name, holder, host, pid, beat_at) VALUES ('sync', 'far', 'elsewhere', 1, $1)`,
        [Date.now()],
      );
      const lock = new SyncLock(one);
      expect(await lock.acquire()).toEqual({ ok: true });
      await lock.release();
      expect(await sql(`SELECT * FROM "${schemaOf(token)}".history_lock`)).toEqual([]);
    });
  });

  it('never shows the password of a PostgreSQL URL', () => {
    const shown = safeUrl('postgres://postgres:s3cret-Pw@db.example.com:5432/analytics');
    expect(shown).not.toContain('s3cret-Pw');
    expect(shown).toBe('postgres://postgres:***@db.example.com:5432/analytics');
    expect(safeUrl('postgres://postgres:s3cret-Pw@[not a url')).not.toContain('s3cret-Pw');
  });
});
