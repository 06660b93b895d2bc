/**
 * What the alerts of issue 35 are made of, shared by the code that decides them (after a sync) and the outbox that
 * delivers them. Amounts are exact decimal strings; identities are `u:<email>` or `s:<service account>`.
 */
export const ALERT_TYPES = [
  'anomaly.detected',
  'budget.threshold',
  'seats.inactive',
  'sync.failed',
  'data.stale',
  'alert.test',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** One alert as decided, before it is written to the outbox (one outbox row per destination that wants it). */
export interface AlertCandidate {
  type: AlertType;
  /**
   * `event:identity-or-scope:day-or-month`: a candidate whose key the outbox already holds is not queued again, so
   * a repeated sync, or two replicas sharing a store, alert once.
   */
  dedupKey: string;
  /** The webhook body's `data`: JSON of strings, integers (below 2^53), booleans, arrays and objects. */
  data: Record<string, unknown>;
  /** What the destinations' filters look at. */
  scope: {
    /** The identities the alert is about (none: about the organization). */
    identities?: string[];
    /** The excess over the expected, exact decimals as strings. */
    excessUsd?: string;
    excessCredits?: string;
  };
}

/** Where an outbox row is in its delivery. */
export type DeliveryState = 'queued' | 'delivered' | 'failed';
