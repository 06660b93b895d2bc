import type { Config } from '../config/config.js';
import type { HistoryStore } from '../history/store/history-store.js';
import { anomaliesOf } from './anomalies-of.js';
import { METHOD, type Anomaly } from './anomaly-find.js';
import type { AnalyticsClient } from '../upstream/client.js';
import { NO_DIGESTS, type DigestPort } from '../upstream/history-port.js';
import { formatDay } from '../util/utc-date.js';

/**
 * The changelog of what the sync found: after each sync, the anomalies of the last 30 complete days that no
 * earlier sync published, kept in the store's history_meta (so a cron sync and every server replica agree),
 * served as anomalies://latest and announced to the subscribers of this process.
 */
export const ANOMALIES_URI = 'anomalies://latest';

/** What anomalies://latest holds: the anomalies the latest sync that found new ones published. */
export interface AnomalyFeed {
  published_at: string;
  start_date: string;
  end_date: string;
  anomalies: Anomaly[];
  method: string;
}

const PUBLISHED = 'anomalies_published';
const LATEST = 'anomalies_latest';
/** Days an anomaly stays remembered as published: longer than any range the sync looks at. */
const REMEMBER_DAYS = 120;
/** Anomalies one sync publishes at most (the largest first); the tool answers the rest. */
const MAX_PUBLISHED = 100;

const idOf = (a: Anomaly) => `${a.kind}|${a.user_email ?? a.service_account_name ?? a.scope}|${a.date}`;

async function readMeta(store: HistoryStore, key: string): Promise<string | undefined> {
  const row = await store.db.selectFrom('history_meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

async function writeMeta(store: HistoryStore, key: string, value: string): Promise<void> {
  await store.db
    .insertInto('history_meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/** The latest published anomalies, or undefined before any sync published some. */
export async function latestAnomalies(store: HistoryStore): Promise<AnomalyFeed | undefined> {
  const text = await readMeta(store, LATEST);
  return text ? (JSON.parse(text) as AnomalyFeed) : undefined;
}

/**
 * Finds the anomalies of the last 30 complete days, publishes those not published before, and returns them.
 * `digests`: the store's (its HistorySource's), read for people's daily sums; without them the store's rows answer.
 */
export async function publishAnomalies(
  client: AnalyticsClient,
  config: Config,
  store: HistoryStore,
  signal: AbortSignal,
  digests: DigestPort = NO_DIGESTS,
): Promise<Anomaly[]> {
  const end = client.days().published;
  const period = { start: end - 29, end };
  // Read from the store, without a tool call's answer budget.
  const ctx = {
    client,
    digests,
    config: { ...config, answerWithinS: 600, callTimeoutS: 900 },
    signal,
    progress: () => {},
  };
  const { anomalies } = await anomaliesOf(ctx, period, true);
  const published = new Set<string>(JSON.parse((await readMeta(store, PUBLISHED)) ?? '[]') as string[]);
  const fresh = anomalies.filter((a) => !published.has(idOf(a))).slice(0, MAX_PUBLISHED);
  if (fresh.length === 0) return [];
  const oldest = formatDay(end - REMEMBER_DAYS);
  const kept = [...published, ...fresh.map(idOf)].filter((id) => id.slice(id.lastIndexOf('|') + 1) >= oldest);
  const feed: AnomalyFeed = {
    published_at: new Date(client.now()).toISOString(),
    start_date: formatDay(period.start),
    end_date: formatDay(period.end),
    anomalies: fresh,
    method: METHOD,
  };
  await writeMeta(store, PUBLISHED, JSON.stringify(kept));
  await writeMeta(store, LATEST, JSON.stringify(feed));
  announce(client);
  return fresh;
}

const listeners = new WeakMap<AnalyticsClient, Set<() => void>>();

/** Calls `fn` whenever a sync of this client's store publishes new anomalies; returns how to stop. */
export function onAnomalies(client: AnalyticsClient, fn: () => void): () => void {
  let set = listeners.get(client);
  if (!set) listeners.set(client, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

function announce(client: AnalyticsClient): void {
  for (const fn of listeners.get(client) ?? []) fn();
}
