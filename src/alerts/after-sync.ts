import type { Config } from '../config/config.js';
import type { OrgDirectory } from '../directory/org-view.js';
import type { QueueOptions } from '../history/store/outbox/outbox-queue.js';
import { formatDay } from '../util/utc-date.js';
import type { AlertCandidate, AlertType } from '../domain/alerts.js';
import type { RuntimeHistory } from '../history/serving/runtime-history.js';
import type { Anomaly } from '../insights/anomaly-find.js';
import { publishAnomalies } from '../insights/anomaly-feed.js';
import type { Logger } from '../logger.js';
import { Pseudonymizer } from '../privacy/pii.js';
import { redactorOf } from '../privacy/redact.js';
import type { ToolContext } from '../tools/types.js';
import type { AnalyticsClient } from '../upstream/client.js';
import { queueAlerts } from '../history/store/outbox/outbox-queue.js';
import { deliverDue, type DeliveryReport } from './deliver.js';
import { destinationSecrets, loadDestinations, organizationOf, type Destination } from './destinations.js';
import { anomalyCandidates } from './decide-anomalies.js';
import { budgetCandidates } from './decide-budgets.js';
import { staleCandidate, syncFailedCandidate, type SyncFailure } from './decide-health.js';
import { inactiveCandidate } from './decide-seats.js';

/** What deciding alerts reads: the sync's client, options and store, and the runtime's pseudonyms and secrets. */
export interface AlertingTarget {
  client: AnalyticsClient;
  config: Config;
  log: Logger;
  history: RuntimeHistory;
  /** The runtime's (its pseudonyms are the answers'); without it, one from the options. */
  pii?: Pseudonymizer;
  /** What logs and answers mask: the destinations' secrets join it. */
  secrets?: Array<string | undefined>;
  /** The destinations; by default those of --alerts-file (none without it: nothing is decided). */
  destinations?: readonly Destination[];
  /** The organization's directory: a destination's `teams` take the alerts of their members (none without it). */
  org?: OrgDirectory;
}

const loaded = new WeakMap<Config, readonly Destination[]>();

/**
 * The destinations alerts go to: the target's, or --alerts-file's, read once per configuration (a bad file throws
 * the ConfigError that names its problems), their secrets added to what is masked.
 */
export function destinationsFor(target: AlertingTarget, env: NodeJS.ProcessEnv = process.env): readonly Destination[] {
  if (target.destinations) return target.destinations;
  const file = target.config.alertsFile;
  if (!file) return [];
  let destinations = loaded.get(target.config);
  if (!destinations) {
    destinations = loadDestinations(file, env);
    target.secrets?.push(...destinationSecrets(destinations));
    loaded.set(target.config, destinations);
  }
  return destinations;
}

/** The reads of a decision, as a tool's, without a call's answer budget. */
function readContext(target: AlertingTarget, signal: AbortSignal): ToolContext {
  return {
    client: target.client,
    digests: target.history.source.digest,
    config: { ...target.config, answerWithinS: 600, callTimeoutS: 900 },
    pii: piiOf(target),
    log: target.log,
    signal,
    progress: () => {},
    resolveEmail: async (text) => text,
    // Deciding reads only: there is no change to record.
    audit: () => {},
  };
}

const piiOf = (target: AlertingTarget) =>
  target.pii ?? new Pseudonymizer(target.config.pii, target.config.piiKey ?? target.config.token ?? '');

/** One decision; a failure is logged and decides nothing, so that one unreadable source never hides the others. */
async function attempt<T>(target: AlertingTarget, what: string, decide: () => Promise<T>): Promise<T | undefined> {
  try {
    return await decide();
  } catch (error) {
    target.log.warn(`could not decide the ${what} alerts`, {
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

/** What alerts carry leaves the server: secrets scrubbed, emails pseudonymous under --pii pseudonymous. */
function redacted(target: AlertingTarget, candidates: AlertCandidate[]): AlertCandidate[] {
  const redact = redactorOf({ config: target.config, pii: piiOf(target), secrets: target.secrets });
  return candidates.map((c) => ({ ...c, data: redact.value(c.data) }));
}

/**
 * After a sync that stored everything: the anomalies it published, the budgets crossed, the week's inactive seats,
 * and whether the store still lags; only the kinds a destination wants (every kind without destinations).
 * `fresh`: what publishAnomalies returned.
 */
export async function decideAfterSync(
  target: AlertingTarget,
  fresh: readonly Anomaly[],
  signal: AbortSignal,
): Promise<AlertCandidate[]> {
  const ctx = readContext(target, signal);
  // What no destination wants is not read (each budget read asks the upstream).
  const destinations = destinationsFor(target);
  const wanted = (type: AlertType) =>
    destinations.length === 0 || destinations.some((d) => d.events.includes('*') || d.events.includes(type));
  const decided = [
    wanted('anomaly.detected') ? anomalyCandidates(fresh) : [],
    (wanted('budget.threshold') && (await attempt(target, 'budget', () => budgetCandidates(ctx)))) || [],
    [wanted('seats.inactive') ? await attempt(target, 'inactive seats', () => inactiveCandidate(ctx)) : undefined],
    [await attempt(target, 'stale data', () => staleCandidate(target.history.source.store, target.client.days()))],
  ];
  return redacted(
    target,
    decided.flat().filter((c): c is AlertCandidate => c !== undefined),
  );
}

/** After a sync that failed: that it failed, and whether the store now lags more than 2 days. */
export async function decideAfterFailure(target: AlertingTarget, failure: SyncFailure): Promise<AlertCandidate[]> {
  const days = target.client.days();
  const stale = await attempt(target, 'stale data', () => staleCandidate(target.history.source.store, days));
  return redacted(target, [syncFailedCandidate(failure, days), ...(stale ? [stale] : [])]);
}

/** Who is in which teams as of the latest published day, as the directory says; none without a directory. */
async function teamsOf(target: AlertingTarget): Promise<QueueOptions['inTeams']> {
  const day = formatDay(target.client.days().published);
  const view = await target.org?.over(day, day);
  return view && ((identity, teams) => view.directory.inTeams(identity, day, teams));
}

/** Queues the alerts decided, in one transaction (a dedup key a destination holds already is skipped); the count. */
async function queue(target: AlertingTarget, decide: () => Promise<AlertCandidate[]>): Promise<number> {
  try {
    const destinations = destinationsFor(target);
    if (destinations.length === 0) return 0;
    const candidates = await decide();
    const inTeams = destinations.some((d) => d.teams) ? await teamsOf(target) : undefined;
    const organization = organizationOf(target.config, target.client.baseUrl);
    const queued = await queueAlerts(target.history.source.store, candidates, destinations, { inTeams, organization });
    if (queued.length) target.log.info('alerts queued', { alerts: queued.length, decided: candidates.length });
    return queued.length;
  } catch (error) {
    target.log.warn('could not queue the alerts of this sync', {
      error: error instanceof Error ? error.message : String(error),
    });
    return 0;
  }
}

/** After a sync that stored everything, still under its lock: decides and queues its alerts; never throws. */
export function queueAfterSync(target: AlertingTarget, fresh: readonly Anomaly[], signal: AbortSignal) {
  return queue(target, () => decideAfterSync(target, fresh, signal));
}

/**
 * What every sync that stored everything does next, under its lock: publishes the anomalies new since the last sync
 * (anomalies://latest; a failure is handed to `couldNot` and counts as none), then decides and queues its alerts.
 */
export async function afterStoredSync(
  target: AlertingTarget,
  signal: AbortSignal,
  couldNot: (error: Error) => void,
): Promise<{ fresh: Anomaly[]; queued: number }> {
  const { source } = target.history;
  const fresh = await publishAnomalies(target.client, target.config, source.store, signal, source.digest).catch(
    (error: Error) => (couldNot(error), [] as Anomaly[]),
  );
  return { fresh, queued: await queueAfterSync(target, fresh, signal) };
}

/** After a sync that failed (or threw): sync.failed and data.stale queued; never throws. */
export function queueAfterFailure(target: AlertingTarget, failure: SyncFailure) {
  return queue(target, () => decideAfterFailure(target, failure));
}

/**
 * Delivers what is due of the outbox (this sync's alerts, and earlier ones whose retry is due); never throws.
 * `lingerMs`: a process about to exit (the sync command) waits that long for retries falling due.
 */
export async function deliverQueued(
  target: AlertingTarget,
  signal: AbortSignal,
  lingerMs = 0,
): Promise<DeliveryReport | undefined> {
  try {
    const destinations = destinationsFor(target);
    if (destinations.length === 0) return undefined;
    return await deliverDue(target.history.source.store, destinations, { log: target.log, signal, lingerMs });
  } catch (error) {
    target.log.warn('could not deliver alerts; the next sync or `alerts deliver` tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}
