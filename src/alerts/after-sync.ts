import type { Config } from '../config/config.js';
import type { AlertCandidate } from '../domain/alerts.js';
import type { RuntimeHistory } from '../history/serving/runtime-history.js';
import type { Anomaly } from '../insights/anomaly-find.js';
import type { Logger } from '../logger.js';
import { Pseudonymizer } from '../privacy/pii.js';
import { redactorOf } from '../privacy/redact.js';
import type { ToolContext } from '../tools/types.js';
import type { AnalyticsClient } from '../upstream/client.js';
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
  secrets?: Array<string | undefined>;
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
 * After a sync that stored everything: the anomalies it published, the budgets crossed, Monday's inactive seats,
 * and whether the store still lags. `fresh`: what publishAnomalies returned.
 */
export async function decideAfterSync(
  target: AlertingTarget,
  fresh: readonly Anomaly[],
  signal: AbortSignal,
): Promise<AlertCandidate[]> {
  const ctx = readContext(target, signal);
  const decided = [
    anomalyCandidates(fresh),
    (await attempt(target, 'budget', () => budgetCandidates(ctx))) ?? [],
    [await attempt(target, 'inactive seats', () => inactiveCandidate(ctx))],
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
