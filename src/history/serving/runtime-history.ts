import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DayRange } from '../../domain/dates.js';
import type { Logger } from '../../logger.js';
import { parseHistoryWhere, type HistoryWhere } from '../../config/options-history.js';
import type { AnalyticsClient } from '../../upstream/client.js';
import type { DigestPort, HistoryPort, HistoryRequest } from '../../upstream/history-port.js';
import { HistorySource } from './history-source.js';
import { historyTarget, openHistory, type HistoryTarget } from '../store/open-history.js';
import { HistoryUnusable } from '../store/history-errors.js';

/** An open history store, attached to the client. */
export interface RuntimeHistory {
  source: HistorySource;
  close(): Promise<void>;
}

/** The history store the configuration names, opened on first use. */
export interface LazyHistory {
  /** Opens it once (later calls get the same); undefined when it cannot be used, said once on stderr. */
  open(): Promise<RuntimeHistory | undefined>;
  close(): Promise<void>;
  /** The store's digests, opening it on first use; none once it is closed or when it cannot be used. */
  digests: DigestPort;
}

interface Options {
  history: HistoryWhere;
  cacheDir: string | undefined;
  demo: boolean;
  /** After a store that could not be reached (PostgreSQL down), how long until it is tried again. */
  retryMs?: number;
}

const RETRY_MS = 60_000;

/**
 * Stands in for the store until it is open: the first request (or a tool call, through `ready`) opens it,
 * and the store itself then takes its place on the client.
 */
class OpeningPort implements HistoryPort {
  constructor(private readonly open: () => Promise<RuntimeHistory | undefined>) {}

  async ready(): Promise<void> {
    await this.open();
  }

  async cover(request: HistoryRequest, daysOnly?: boolean) {
    return (await this.open())?.source.cover(request, daysOnly) ?? null;
  }

  storedFrom(): number | undefined {
    void this.open();
    return undefined;
  }

  keep(request: HistoryRequest, window: DayRange, items: unknown[], fetchedAt: string): void {
    void this.open().then((h) => h?.source.keep(request, window, items, fetchedAt));
  }
}

/**
 * The history store the configuration names, attached to the client and opened on its first use, so that a
 * server starts without paying for it; undefined when none is configured. A store that cannot be used
 * (damaged and moved aside, PostgreSQL down, a newer schema) is said once on stderr, and answers are live.
 */
export function configuredHistory(client: AnalyticsClient, options: Options, log: Logger): LazyHistory | undefined {
  const demo = options.demo && options.history.kind === 'auto';
  if (!demo && historyTarget(options.history, options.cacheDir, client.sender.credential).kind === 'none')
    return undefined;
  let opening: Promise<RuntimeHistory | undefined> | undefined;
  let closed = false;
  // A store not reachable at start (PostgreSQL down) is tried again on first use after a while, quietly:
  // meanwhile answers are live, and the port stays to try it.
  let retryAt = Number.POSITIVE_INFINITY;
  let failedBefore = false;
  const open = () => {
    if (Date.now() >= retryAt) [opening, retryAt] = [undefined, Number.POSITIVE_INFINITY];
    return (opening ??= closed
      ? Promise.resolve(undefined)
      : openOnce(client, options, log, failedBefore).then((outcome) => {
          if (outcome.retry && !closed) {
            [retryAt, failedBefore] = [Date.now() + (options.retryMs ?? RETRY_MS), true];
            client.useHistory(port);
          }
          return outcome.history;
        }));
  };
  const port = new OpeningPort(open);
  client.useHistory(port);
  const digest = async () => (closed ? undefined : (await open())?.source.digest);
  return {
    open,
    digests: {
      digests: async (name, days, byDay) => (await digest())?.digests(name, days, byDay) ?? null,
      names: async (ids) => (await digest())?.names(ids) ?? new Map(),
      lastId: async () => (await digest())?.lastId() ?? 0,
    },
    close: async () => {
      closed = true;
      if (!opening) return client.useHistory(undefined);
      await (await opening)?.close();
    },
  };
}

/**
 * The configured store, opened now and attached to the client; undefined without one, or when it cannot be used.
 * A text `history` (a test's or a bench's file) is read as --history reads it (parseHistoryWhere).
 */
export async function attachHistory(
  client: AnalyticsClient,
  options: Omit<Options, 'history'> & { history: HistoryWhere | string },
  log: Logger,
): Promise<RuntimeHistory | undefined> {
  return configuredHistory(client, { ...options, history: whereOf(options.history) }, log)?.open();
}

function whereOf(history: HistoryWhere | string): HistoryWhere {
  const where = typeof history === 'string' ? parseHistoryWhere(history) : history;
  if (typeof where === 'string') throw new Error(where);
  return where;
}

async function openOnce(
  client: AnalyticsClient,
  options: Options,
  log: Logger,
  retried: boolean,
): Promise<{ history?: RuntimeHistory; retry?: boolean }> {
  // The demo's token is new each run: its store lives in a temporary directory, gone when it stops.
  const demoDir =
    options.demo && options.history.kind === 'auto' ? mkdtempSync(join(tmpdir(), 'org-analytics-demo-')) : undefined;
  const target: HistoryTarget = demoDir
    ? { kind: 'sqlite', path: join(demoDir, 'history.sqlite') }
    : historyTarget(options.history, options.cacheDir, client.sender.credential);
  try {
    const store = await openHistory(target, client.sender.credential, log);
    if (!store) {
      client.useHistory(undefined);
      return {};
    }
    await store.readEarliest();
    const source = new HistorySource(store, {
      now: () => client.now(),
      days: () => client.days(),
      onError: (error) =>
        log.warn('the history store failed: answering live until it is back', { error: error.message }),
    });
    client.useHistory(source);
    if (retried) log.warn('the history store is back: answering from it again', { where: store.where });
    else log.debug('history store open', { engine: store.engine, where: store.where });
    const history: RuntimeHistory = {
      source,
      close: async () => {
        client.useHistory(undefined);
        await store.close();
        if (demoDir) rmSync(demoDir, { recursive: true, force: true });
      },
    };
    return { history };
  } catch (error) {
    client.useHistory(undefined);
    const retry = error instanceof HistoryUnusable && error.transient;
    if (!retried)
      log.warn(`the history store cannot be used: answering live${retry ? ', trying it again now and then' : ''}`, {
        error: (error as Error).message,
      });
    if (demoDir) rmSync(demoDir, { recursive: true, force: true });
    return { retry };
  }
}
