import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../src/history/store/open-history.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { credentialFingerprint } from '../../src/upstream/credential.js';
import { freePort, tcpProxy, type Proxy } from '../helpers/tcp-proxy.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
/** The real PostgreSQL every machine runs (.ci/run starts it): user postgres, trust auth. */
const PG_URL = process.env.HISTORY_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PASSWORD = 'pw-Never-Logged-7';

/** The built binary over stdio against the simulator, with the history store the test names. */
async function serve(sim: Simulator, history: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--log-level', 'debug'],
    env: {
      ANALYTICS_API_TOKEN: sim.token,
      ANALYTICS_BASE_URL: sim.url,
      ANALYTICS_HISTORY: history,
      ANALYTICS_CACHE_DIR: mkdtempSync(join(tmpdir(), 'bad-states-cache-')),
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'bad-states', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(transport);
  const ask = async (range: string) => {
    const before = sim.requests().length;
    const r = await client.callTool({ name: 'get_active_user_counts', arguments: { range } });
    const text = (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
    if (r.isError) throw new Error(`the call failed: ${text}\n${stderr}`);
    const structured = r.structuredContent as { freshness: { source: string } };
    return { source: structured.freshness.source, upstream: sim.requests().length - before };
  };
  return { ask, stderr: () => stderr, close: () => client.close() };
}

async function sql(text: string): Promise<Array<Record<string, unknown>>> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return (await c.query(text)).rows as Array<Record<string, unknown>>;
  } finally {
    await c.end();
  }
}

/** How many stderr lines match. */
const count = (stderr: string, pattern: RegExp) => stderr.split('\n').filter((l) => pattern.test(l)).length;
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A real store with enough rows to span many pages, closed. */
async function realStore(path: string) {
  const store = (await openHistory({ kind: 'sqlite', path }, 'unused'))!;
  const items = Array.from({ length: 3000 }, (_, i) => ({ user_email: `u${i}@example.com`, note: 'x'.repeat(200) }));
  await store.put([
    { dataset: 'probe', start: 1, end: 1, grain: 'day', fetched_at: new Date().toISOString(), expires_at: null, items },
  ]);
  await store.close();
}

describe('bad states of the history store: none fails a call (the built binary over stdio)', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ users: 40, token: `bad-states-${process.pid}-${Date.now()}`, rateLimit: false });
  });
  afterAll(() => sim?.close());

  it('a server starts without opening the store; its first call opens it, once', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'bad-states-')), 'h.sqlite');
    const server = await serve(sim, path);
    try {
      expect(existsSync(path)).toBe(false);
      expect(await server.ask('last_7_days')).toMatchObject({ source: 'live' });
      expect(existsSync(path)).toBe(true);
      await server.ask('last_30_days');
      expect(count(server.stderr(), /history store open/)).toBe(1);
    } finally {
      await server.close();
    }
  });

  describe.each([
    [
      'garbage bytes',
      (path: string) => writeFileSync(path, Buffer.from('this is not a SQLite database\n'.repeat(400))),
    ],
    [
      'a real store truncated mid-file',
      async (path: string) => {
        await realStore(path);
        truncateSync(path, Math.floor(statSync(path).size / 2));
      },
    ],
  ] as const)('a damaged SQLite file: %s', (_name, damage) => {
    let dir: string;
    let before: string;
    let server: Awaited<ReturnType<typeof serve>>;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'bad-states-'));
      await damage(join(dir, 'h.sqlite'));
      before = digest(join(dir, 'h.sqlite'));
      server = await serve(sim, join(dir, 'h.sqlite'));
    });
    afterAll(() => server?.close());

    it('starts, answers live, and says so once on stderr', async () => {
      for (const range of ['last_7_days', 'last_30_days']) {
        const answer = await server.ask(range);
        expect(answer).toMatchObject({ source: 'live' });
        expect(answer.upstream).toBeGreaterThan(0);
      }
      expect(count(server.stderr(), /history store was damaged/)).toBe(1);
    });

    it('moves the file aside, next to it under a new name, and starts a new one', () => {
      const aside = readdirSync(dir).filter((f) => f.startsWith('h.sqlite.damaged-') && !/-(wal|shm)$/.test(f));
      expect(aside).toHaveLength(1);
      expect(digest(join(dir, aside[0]!))).toBe(before);
      expect(server.stderr()).toContain(aside[0]);
      const fresh = new Database(join(dir, 'h.sqlite'), { readonly: true });
      try {
        expect(fresh.prepare("SELECT value FROM history_meta WHERE key = 'schema_version'").get()).toBeTruthy();
      } finally {
        fresh.close();
      }
    });
  });

  describe('a store written by a newer version', () => {
    let path: string;
    let before: string;
    let server: Awaited<ReturnType<typeof serve>>;
    beforeAll(async () => {
      path = join(mkdtempSync(join(tmpdir(), 'bad-states-')), 'h.sqlite');
      await realStore(path);
      const db = new Database(path);
      db.prepare("UPDATE history_meta SET value = '999' WHERE key = 'schema_version'").run();
      db.close();
      before = digest(path);
      server = await serve(sim, path);
    });
    afterAll(() => server?.close());

    it('says clearly why on stderr, then answers live', async () => {
      const answer = await server.ask('last_7_days');
      expect(answer.source).toBe('live');
      expect(answer.upstream).toBeGreaterThan(0);
      expect(count(server.stderr(), /schema version 999, newer than this version of org-analytics-mcp/)).toBe(1);
      expect(server.stderr()).toMatch(/upgrade org-analytics-mcp/);
    });

    it('leaves the file alone', () => {
      expect(digest(path)).toBe(before);
      expect(readdirSync(join(path, '..')).filter((f) => f.includes('damaged'))).toEqual([]);
    });
  });

  it('PostgreSQL down: answers live, with a note, and never the password', async () => {
    const closed = await freePort();
    const server = await serve(sim, `postgres://postgres:${PASSWORD}@127.0.0.1:${closed}/postgres`);
    try {
      const answer = await server.ask('last_7_days');
      expect(answer.source).toBe('live');
      expect(answer.upstream).toBeGreaterThan(0);
      expect(count(server.stderr(), /history store cannot be used: answering live/)).toBe(1);
      expect(server.stderr()).toMatch(/PostgreSQL at .* is not reachable/);
    } finally {
      await server.close();
    }
    expect(server.stderr()).not.toContain(PASSWORD);
  });

  describe('PostgreSQL going away while the server runs', () => {
    let proxy: Proxy;
    let server: Awaited<ReturnType<typeof serve>>;
    beforeAll(async () => {
      proxy = await tcpProxy(new URL(PG_URL));
      const url = new URL(PG_URL);
      url.host = `127.0.0.1:${proxy.port}`;
      url.password = PASSWORD;
      server = await serve(sim, url.toString());
    });
    afterAll(async () => {
      await server?.close();
      proxy?.close();
      await sql(`DROP SCHEMA IF EXISTS "${schema()}" CASCADE`);
    });
    const schema = () => `org_analytics_${credentialFingerprint(sim.token)}`;
    const storedBlocks = async () =>
      Number((await sql(`SELECT count(*) AS n FROM "${schema()}".history_blocks`))[0]!.n);

    it('uses the store while it is there, and names it without the password', async () => {
      expect((await server.ask('last_7_days')).source).toBe('live');
      // The live answer's days are kept as they pass; once they are in, the same question reads them back.
      for (let i = 0; i < 100 && (await storedBlocks()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await server.ask('last_7_days')).toEqual({ source: 'history', upstream: 0 });
      expect(server.stderr()).toMatch(/history store open.*postgres/);
      expect(server.stderr()).not.toContain(PASSWORD);
    });

    it('then answers live, saying once that the store failed', async () => {
      proxy.close();
      for (const range of ['last_30_days', 'last_90_days']) {
        const answer = await server.ask(range);
        expect(answer.source).toBe('live');
        expect(answer.upstream).toBeGreaterThan(0);
      }
      expect(count(server.stderr(), /the history store failed: answering live/)).toBe(1);
      expect(server.stderr()).not.toContain(PASSWORD);
    });
  });
});
