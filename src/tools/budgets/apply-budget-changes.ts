import { newChunkId, type AuditChange, type AuditRecord } from '../../privacy/audit.js';
import { MAX_OVERRIDES_PER_SET } from '../../contract/limits.js';
import { UserInputError } from '../../errors.js';
import { toolErrorMessage } from '../failure-text.js';
import { setUserBudgetOverrides, type Override } from '../../upstream/endpoints/set-user-budget-overrides.js';
import { CancelledError, isUpstreamError } from '../../upstream/errors.js';
import { identityKey } from '../../upstream/listing/merge.js';
import { entryKey, identityRef, type PlannedEntry } from './budget-entries.js';
import type { ToolContext } from '../types.js';

/** One set request's outcome, as the answer reports it. */
export interface Chunk {
  entries: number;
  outcome: 'applied' | 'failed' | 'not_sent' | 'outcome_unknown';
  error?: string;
}

const changeOf = (p: PlannedEntry): AuditChange => ({
  identity: p.user,
  kind: p.kind,
  resource: p.resource!,
  period: p.period,
  before: p.before,
  after: p.after,
});

/**
 * Sends the changes in chunks of at most 5000, in order, and stops at the first chunk that fails as a
 * whole: earlier chunks stay applied, later ones are not sent, and the answer says which is which. Each
 * chunk's intent is audited before it is sent and its outcome after, so a crash in between leaves a trace.
 */
export async function applyChanges(writes: PlannedEntry[], ctx: ToolContext): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for (let from = 0; from < writes.length; from += MAX_OVERRIDES_PER_SET) {
    const part = writes.slice(from, from + MAX_OVERRIDES_PER_SET);
    if (chunks.some((c) => c.outcome !== 'applied')) {
      for (const p of part)
        Object.assign(p, { status: 'not_sent', reason: 'an earlier chunk failed, so this one was not sent' });
      chunks.push({ entries: part.length, outcome: 'not_sent' });
      continue;
    }
    const chunk = newChunkId();
    try {
      ctx.audit({ phase: 'intent', chunk, changes: part.map(changeOf) });
    } catch (error) {
      const message = `the audit log could not be written (${error instanceof Error ? error.message : String(error)}), so this chunk was not sent; whoever runs the server fixes --audit-log (path, permissions, free space), then call again`;
      for (const p of part) Object.assign(p, { status: 'not_sent', reason: message });
      chunks.push({ entries: part.length, outcome: 'not_sent', error: message });
      continue;
    }
    const body: Override[] = part.map((p) => ({
      ...identityRef(p),
      resource: p.resource!,
      period: p.period,
      config: { limit: p.after },
    }));
    let records: AuditRecord[];
    try {
      const { value } = await ctx.client.call(setUserBudgetOverrides, { overrides: body }, ctx.signal);
      // A failure names only the identity. When one identity has several entries in the chunk (possible
      // only while the plan is unknown), the failure cannot be pinned on one of them.
      const failed = new Map(value.failures.map((f) => [identityKey(f), f.error_message]));
      const perIdentity = new Map<string, number>();
      for (const p of part) perIdentity.set(entryKey(p), (perIdentity.get(entryKey(p)) ?? 0) + 1);
      for (const p of part) {
        const reason = failed.get(entryKey(p));
        if (reason === undefined) Object.assign(p, { status: 'applied' });
        else if (perIdentity.get(entryKey(p))! > 1)
          Object.assign(p, {
            status: 'outcome_unknown',
            reason: `upstream reported a failure for this identity without saying which of its entries: ${reason}`,
          });
        else Object.assign(p, { status: 'failed', reason: `upstream: ${reason}` });
      }
      chunks.push({ entries: part.length, outcome: 'applied' });
      records = part.map((p) => ({
        ...changeOf(p),
        outcome: p.status === 'applied' ? 'applied' : p.status === 'failed' ? 'failed' : 'unknown',
        ...(p.reason ? { reason: p.reason } : {}),
      }));
    } catch (error) {
      // Only a request refused before sending, one that provably never left, or one the upstream refused as a
      // whole, is known not to have been applied. A cancellation after sending may have landed.
      const refused = ['invalid_argument', 'unauthenticated', 'permission_denied', 'rate_limited'];
      const never =
        error instanceof UserInputError ||
        (isUpstreamError(error) &&
          (error.neverReached ||
            refused.includes(error.kind) ||
            (error instanceof CancelledError && !error.afterSend)));
      const message = toolErrorMessage(error);
      for (const p of part) Object.assign(p, { status: never ? 'failed' : 'outcome_unknown', reason: message });
      chunks.push({ entries: part.length, outcome: never ? 'failed' : 'outcome_unknown', error: message });
      records = part.map((p) => ({ ...changeOf(p), outcome: never ? 'failed' : 'unknown', reason: message }));
    }
    try {
      ctx.audit({ phase: 'outcome', chunk, records });
    } catch (error) {
      // The answer still tells what happened; the next start will point at this chunk as unfinished.
      ctx.log.error('could not write a budget write outcome to the audit log', {
        chunk,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return chunks;
}
