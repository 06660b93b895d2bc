import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import type { AnalyticsClient } from '../upstream/client.js';
import { HistorySource } from './history-source.js';
import { historyTarget, openHistory, type HistoryTarget } from './open-history.js';

export interface RuntimeHistory {
  source: HistorySource;
  close(): Promise<void>;
}

/**
 * The history store the configuration names, opened and attached to the client; undefined without one.
 * A store that cannot be used (PostgreSQL down, a newer schema) is said once on stderr, and answers are live.
 */
export async function attachHistory(
  client: AnalyticsClient,
  options: { history: string; cacheDir: string | undefined; demo: boolean },
  log: Logger,
): Promise<RuntimeHistory | undefined> {
  // The demo's token is new each run: its store lives in a temporary directory, gone when it stops.
  const demoDir =
    options.demo && options.history === 'auto' ? mkdtempSync(join(tmpdir(), 'org-analytics-demo-')) : undefined;
  const target: HistoryTarget = demoDir
    ? { kind: 'sqlite', path: join(demoDir, 'history.sqlite') }
    : historyTarget(options.history, options.cacheDir, client.caller.credential);
  try {
    const store = await openHistory(target, client.caller.credential, log);
    if (!store) return undefined;
    await store.readEarliest();
    const source = new HistorySource(store, {
      now: () => client.now(),
      days: () => client.days(),
      onError: (error) =>
        log.warn('the history store failed: answering live until it is back', { error: error.message }),
    });
    client.useHistory(source);
    log.debug('history store open', { engine: store.engine, where: store.where });
    return {
      source,
      close: async () => {
        client.useHistory(undefined);
        await store.close();
        if (demoDir) rmSync(demoDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    log.warn('the history store cannot be used: answering live', { error: (error as Error).message });
    if (demoDir) rmSync(demoDir, { recursive: true, force: true });
    return undefined;
  }
}
