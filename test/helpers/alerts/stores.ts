import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { HistoryStore } from '../../../src/history/store/history-store.js';
import { openHistory, type HistoryTarget } from '../../../src/history/store/open-history.js';
import { credentialFingerprint } from '../../../src/upstream/credential.js';

/** The real PostgreSQL every machine runs (.ci/run starts it): user postgres, trust auth. */
export const PG_URL = process.env.HISTORY_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A store of its own: a fresh SQLite file, or a fresh schema of PostgreSQL (named after a fresh credential). */
export interface TestStore {
  target: HistoryTarget;
  credential: string;
  open(): Promise<HistoryStore>;
  /** Removes it, once every store opened on it is closed. */
  remove(): Promise<void>;
}

export function testStore(engine: 'sqlite' | 'postgres'): TestStore {
  const credential = credentialFingerprint(`alerts-${process.pid}-${Math.random()}`);
  const opener = (target: HistoryTarget) => async () => (await openHistory(target, credential))!;
  if (engine === 'postgres') {
    const target: HistoryTarget = { kind: 'postgres', url: PG_URL };
    const remove = async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "org_analytics_${credential}" CASCADE`).finally(() => c.end());
    };
    return { target, credential, open: opener(target), remove };
  }
  const dir = mkdtempSync(join(tmpdir(), 'alerts-store-'));
  const target: HistoryTarget = { kind: 'sqlite', path: join(dir, 'history.sqlite') };
  return {
    target,
    credential,
    open: opener(target),
    remove: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A store of its own for the tests of a describe block: opened before them, closed and removed after them. The
 * getter gives the open store.
 */
export function storeForBlock(engine: 'sqlite' | 'postgres'): () => HistoryStore {
  let where: TestStore | undefined;
  let store: HistoryStore | undefined;
  beforeAll(async () => {
    where = testStore(engine);
    store = await where.open();
  });
  afterAll(async () => {
    await store?.close();
    await where?.remove();
  });
  return () => store!;
}
