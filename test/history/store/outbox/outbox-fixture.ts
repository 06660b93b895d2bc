import type { AlertCandidate } from '../../../../src/domain/alerts.js';
import type { AlertFilter } from '../../../../src/config/options-alerts.js';

/** What the outbox tests queue: anomalies about people, one about the organization, and four destinations. */
export const T0 = Date.parse('2026-11-21T04:20:11Z');
export const anomaly = (who: string, excessUsd: string): AlertCandidate => ({
  type: 'anomaly.detected',
  dedupKey: `anomaly.detected:${who}:2026-11-20`,
  data: { anomalies: [{ user_email: who.slice(2), excess_usd: excessUsd }] },
  scope: { identities: [who], excessUsd },
});
export const stale: AlertCandidate = {
  type: 'data.stale',
  dedupKey: 'data.stale:organization:2026-11-21',
  data: { days_behind: 3 },
  scope: {},
};
export const ALL: AlertFilter = { name: 'all', events: ['*'] };
export const BIG: AlertFilter = { name: 'big', events: ['anomaly.detected'], minExcessUsd: '50' };
export const ANA: AlertFilter = { name: 'ana', events: ['*'], identities: ['u:ana@x.example'] };
export const TEAM: AlertFilter = { name: 'team', events: ['*'], teams: ['eng'] };
export const inTeams = (id: string, teams: readonly string[]) => id === 'u:bo@x.example' && teams.includes('eng');
