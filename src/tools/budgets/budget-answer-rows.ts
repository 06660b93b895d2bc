import { clip } from '../../format/text.js';
import type { PlannedEntry } from './budget-entries.js';

/**
 * A call may carry 50,000 entries, and each refused one could be answered with a row of its own: megabytes.
 * The answer instead counts every entry (counts), groups the refused ones by reason with their first few
 * identities (refused), and keeps full rows for a bounded number of entries, those that need attention first.
 */
const MAX_ROWS = 40;
/**
 * The most an answer weighs, text and structured content together, in UTF-8 bytes: 8 KB less room for what
 * the tool adds (the freshness line). Rows are dropped to fit.
 */
const ANSWER_BYTES = 7_600;
/** Room for each kind of reason the planner gives that one call is likely to meet; more are counted together. */
const MAX_GROUPS = 10;
const FIRST_SHOWN = 3;
const GROUP_REASON_CHARS = 120;
const GROUP_USER_CHARS = 32;

/** Statuses of entries that are never sent. */
export const REFUSED = new Set(['invalid', 'unknown_identity']);

/** Which rows are kept first: what went wrong in a write, then what is (or would be) written, then refusals. */
const PRIORITY: Record<string, number> = {
  failed: 0,
  outcome_unknown: 0,
  not_sent: 0,
  applied: 1,
  new: 1,
  changed: 1,
  cleared: 1,
  invalid: 2,
  unknown_identity: 2,
  unchanged: 3,
};

export interface RefusedGroup {
  reason: string;
  count: number;
  /** "#index identity", the identity clipped. */
  first: string[];
}

/**
 * The most rows, by priority and then in input order, whose answer stays within ANSWER_BYTES; the rows
 * kept are given back in input order. `answer` builds the whole answer (text and structured) around them.
 */
export function keptRows<T extends Pick<PlannedEntry, 'index' | 'status'>, A>(
  rows: readonly T[],
  answer: (kept: T[]) => A,
  weigh: (answer: A) => number,
): A {
  const ranked = [...rows]
    .sort((a, b) => (PRIORITY[a.status] ?? 9) - (PRIORITY[b.status] ?? 9) || a.index - b.index)
    .slice(0, MAX_ROWS);
  for (let n = ranked.length; ; n--) {
    const out = answer(ranked.slice(0, n).sort((a, b) => a.index - b.index));
    if (n === 0 || weigh(out) <= ANSWER_BYTES) return out;
  }
}

/** A reason with the caller's values taken out, so entries refused for the same cause fall in one group. */
const reasonKind = (reason: string) =>
  reason
    .replace(/'[^']*'/g, "'…'")
    .replace(/^limit -?[\d.e+]+/i, 'limit …')
    .replace(/appear \d+ times/, 'appear more than once');

/** The refused entries by status and reason, in order of first appearance; the groups past MAX_GROUPS lumped. */
export function refusedGroups(planned: readonly PlannedEntry[]): RefusedGroup[] {
  const groups = new Map<string, RefusedGroup & { reasons: Set<string> }>();
  for (const p of planned) {
    if (!REFUSED.has(p.status)) continue;
    const reason = p.reason ?? p.status;
    let key = `${p.status}|${reasonKind(reason)}`;
    if (!groups.has(key) && groups.size >= MAX_GROUPS - 1) key = 'other';
    const group = groups.get(key) ?? { reason, count: 0, first: [], reasons: new Set<string>() };
    groups.set(key, group);
    group.count += 1;
    group.reasons.add(key === 'other' ? reasonKind(reason) : reason);
    if (group.first.length < FIRST_SHOWN) group.first.push(`#${p.index} ${clip(p.user, GROUP_USER_CHARS)}`);
  }
  return [...groups.entries()].map(([key, { reasons, ...group }]) => ({
    ...group,
    reason:
      key === 'other' && reasons.size > 1
        ? `${reasons.size} other reasons; preview these entries on their own to see each one's`
        : clip(
            key === 'other' || reasons.size > 1 || group.reason.length > GROUP_REASON_CHARS
              ? reasonKind(group.reason)
              : group.reason,
            GROUP_REASON_CHARS,
          ),
  }));
}
