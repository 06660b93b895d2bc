import type { AlertCandidate } from '../domain/alerts.js';
import { subtractDecimals, sumDecimals } from '../domain/numbers.js';
import type { Anomaly, Kind } from '../insights/anomaly-find.js';
import { identityKey } from '../upstream/listing/merge.js';

/** What each kind's value counts, for the destinations' minimum excess; active users count neither. */
const UNIT: Record<Kind, 'credits' | 'usd' | undefined> = {
  identity_credits: 'credits',
  org_credits: 'credits',
  identity_cost: 'usd',
  org_cost: 'usd',
  resource_cost: 'usd',
  new_resource: 'usd',
  org_active_users: undefined,
};

/** Who or what an anomaly is about: an identity key, `organization`, or `resource:<model or resource>`. */
function subjectOf(a: Anomaly): string {
  if (a.user_email !== undefined || a.service_account_name !== undefined) return identityKey(a);
  return a.scope === 'organization' || a.scope === undefined ? 'organization' : `resource:${a.scope}`;
}

const isIdentity = (subject: string) => subject.startsWith('u:') || subject.startsWith('s:');

/**
 * `anomaly.detected`: the anomalies a sync published (new ones, ranked as find_anomalies ranks them), one alert
 * per subject and day, in rank order of its first anomaly. An identity's credits and cost spike of one day are one
 * alert; its excess sums the excesses over the baselines, exactly, per unit.
 */
export function anomalyCandidates(fresh: readonly Anomaly[]): AlertCandidate[] {
  const groups = new Map<string, { subject: string; anomalies: Anomaly[] }>();
  for (const a of fresh) {
    const subject = subjectOf(a);
    const key = `anomaly.detected:${subject}:${a.date}`;
    const group = groups.get(key) ?? groups.set(key, { subject, anomalies: [] }).get(key)!;
    group.anomalies.push(a);
  }
  return [...groups].map(([dedupKey, { subject, anomalies }]) => {
    const excess = { credits: [] as string[], usd: [] as string[] };
    for (const a of anomalies) {
      const unit = UNIT[a.kind];
      if (unit) excess[unit].push(subtractDecimals(String(a.value), String(a.baseline)));
    }
    return {
      type: 'anomaly.detected',
      dedupKey,
      data: { anomalies },
      scope: {
        ...(isIdentity(subject) ? { identities: [subject] } : {}),
        ...(excess.usd.length ? { excessUsd: sumDecimals(excess.usd) } : {}),
        ...(excess.credits.length ? { excessCredits: sumDecimals(excess.credits) } : {}),
      },
    } satisfies AlertCandidate;
  });
}
