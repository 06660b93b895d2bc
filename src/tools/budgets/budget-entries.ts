import type { BudgetResource } from '../../contract/enums.js';
import { BUDGET_LIMIT_PATTERN } from '../../contract/limits.js';
import { clip } from '../../format/text.js';
import { identityKey } from '../../upstream/listing/merge.js';

export interface EntryInput {
  user_email?: string;
  service_account_name?: string;
  limit?: string | number | null;
  resource?: 'credits' | 'usd' | BudgetResource;
  period?: 'monthly' | 'BUDGET_PERIOD_MONTHLY';
}

/** Planned statuses, then what applying made of the written ones. */
export type PlanStatus =
  | 'new'
  | 'changed'
  | 'cleared'
  | 'unchanged'
  | 'invalid'
  | 'unknown_identity'
  | 'applied'
  | 'failed'
  | 'not_sent'
  | 'outcome_unknown';

export interface PlannedEntry {
  index: number;
  user: string;
  kind: 'user' | 'service_account';
  resource: BudgetResource | null;
  period: 'BUDGET_PERIOD_MONTHLY';
  /** Current limit: null when there is no override, "" when it is cleared. */
  before: string | null;
  /** Requested limit; "" clears. */
  after: string;
  status: PlanStatus;
  reason?: string;
}

/** The entry's identity as the API names it. */
export function identityRef(
  p: Pick<PlannedEntry, 'kind' | 'user'>,
): { user_email: string } | { service_account_name: string } {
  return p.kind === 'user' ? { user_email: p.user } : { service_account_name: p.user };
}

/** Identity key of an entry: emails compared case-insensitively, service-account names exactly. */
export const entryKey = (p: Pick<PlannedEntry, 'kind' | 'user'>) => identityKey(identityRef(p));

/** The limit as the API takes it, or why not. */
export function normalizeLimit(limit: EntryInput['limit']): { limit: string } | { error: string } {
  if (limit === null || limit === '' || limit === undefined)
    return limit === undefined ? { error: 'limit is required (use null or "" to clear)' } : { limit: '' };
  if (typeof limit === 'number') {
    if (!Number.isSafeInteger(limit)) {
      return {
        error: Number.isInteger(limit)
          ? `limit ${limit} is above 2^53-1 and may have lost digits in JSON; send it as a string`
          : `limit ${limit} is not a whole number`,
      };
    }
    if (limit <= 0) return { error: `limit ${limit} must be positive (use null or "" to clear)` };
    return { limit: String(limit) };
  }
  if (BUDGET_LIMIT_PATTERN.test(limit)) return { limit };
  const shown = clip(limit);
  if (/^0\d/.test(limit)) return { error: `limit '${shown}' has leading zeros` };
  if (/^\d{19,}$/.test(limit)) return { error: `limit '${shown}' has more than 18 digits` };
  if (limit === '0' || /^-/.test(limit))
    return { error: `limit '${shown}' must be a positive integer (use null or "" to clear)` };
  return { error: `limit '${shown}' is not a positive integer string (no fractions, exponents, signs or spaces)` };
}
