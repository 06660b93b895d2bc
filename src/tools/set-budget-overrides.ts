import { createHash } from 'node:crypto';
import { z } from 'zod';
import { newChunkId, type AuditChange, type AuditRecord } from '../audit.js';
import { MAX_OVERRIDES_PER_SET } from '../contract/limits.js';
import type { BillingPlan } from '../contract/enums.js';
import { commonDomain, shortId } from '../format/text.js';
import { CancelledError, InvalidArgumentError, isUpstreamError } from '../upstream/errors.js';
import { identityKey } from '../upstream/merge.js';
import type { Override } from '../upstream/schemas.js';
import { toolErrorMessage } from '../tool-errors.js';
import { periodInput, resourceInput, shortResource } from './budget-common.js';
import { entryKey, identityRef, planChanges, type PlannedEntry } from './budget-plan.js';
import { ConfirmationNeeded, defineTool, type ToolContext } from './types.js';

const WRITES = new Set(['new', 'changed', 'cleared']);
/** Statuses of entries that are never sent. */
const REFUSED = new Set(['invalid', 'unknown_identity']);
const STATUS = ['new', 'changed', 'cleared', 'unchanged', 'invalid', 'unknown_identity', 'applied', 'failed', 'not_sent', 'outcome_unknown'] as const;

const entryInput = z.strictObject({
  user_email: z.string().optional(),
  service_account_name: z.string().optional(),
  limit: z.union([z.string(), z.number(), z.null()], { error: 'use a positive whole number (a string, or a JSON number up to 2^53-1), or null or "" to clear' }).describe('positive integer (string for more than 15 digits); null or "" clears'),
  resource: resourceInput.optional().describe('default: the billing plan'),
  period: periodInput.optional(),
});

export const setBudgetOverrides = defineTool({
  name: 'set_budget_overrides',
  title: 'Set budget overrides',
  description:
    'Sets, changes or clears per-user monthly budget limits. Use dry_run first: it shows each change (new, changed before→after, cleared, unchanged, invalid) and writes nothing. ' +
    'Invalid entries are never sent; valid ones are applied even if others fail; every entry is accounted for. The user may be asked to confirm. Takes effect in real time.',
  input: z.strictObject({ overrides: z.array(entryInput).min(1).max(50_000), dry_run: z.boolean().default(false) }),
  output: z.object({
    dry_run: z.boolean(),
    resource: z.string().nullable(),
    confirmation: z.enum(['accepted', 'declined', 'cancelled', 'not_asked']),
    complete: z.boolean(),
    counts: z.record(z.string(), z.number().int()),
    entries: z.array(
      z.object({
        index: z.number().int(),
        user: z.string(),
        kind: z.enum(['user', 'service_account']),
        resource: z.string().nullable(),
        before: z.string().nullable(),
        after: z.string(),
        status: z.enum(STATUS),
        reason: z.string().optional(),
      }),
    ),
    chunks: z.array(z.object({ entries: z.number().int(), outcome: z.enum(['applied', 'failed', 'not_sent', 'outcome_unknown']), error: z.string().optional() })),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  writes: true,
  async run(args, ctx) {
    const plan = await billingPlan(ctx);
    const planned = await planChanges(args.overrides, plan, ctx);
    const writes = planned.filter((p) => WRITES.has(p.status));
    const result = (confirmation: 'accepted' | 'declined' | 'cancelled' | 'not_asked', chunks: Chunk[] = []) => output(args.dry_run, plan, confirmation, planned, chunks);
    if (args.dry_run || writes.length === 0) return result('not_asked');

    let confirmation: 'accepted' | 'not_asked' = 'not_asked';
    if (ctx.confirmation) {
      const digest = digestOf(writes);
      const answer = await ctx.confirmation.answer(digest);
      if (answer === 'cannot_ask') {
        throw new InvalidArgumentError(
          'Nothing was written: this connection cannot ask the user to confirm budget changes. Preview them with dry_run: true. ' +
            'To apply them, use a client that supports elicitation (forms), where the user confirms the changes; for trusted automation, start the server with --confirm-writes never',
        );
      }
      if (answer === 'missing' || answer === 'stale') throw new ConfirmationNeeded(confirmMessage(writes, ctx), digest);
      if (answer !== 'accepted') return result(answer);
      confirmation = 'accepted';
    }
    return result(confirmation, await apply(writes, ctx));
  },
  // Nothing applied because nothing was valid is a failure; a preview of it is not (it says so instead).
  isError: (out) => !out.complete || (!out.dry_run && nothingValid(out.entries)),
  text(out) {
    const c = out.counts;
    const order = ['applied', 'new', 'changed', 'cleared', 'unchanged', 'invalid', 'unknown_identity', 'failed', 'not_sent', 'outcome_unknown'];
    const summary = order.filter((s) => c[s]).map((s) => `${s} ${c[s]}`).join(', ');
    const refusedAll = nothingValid(out.entries);
    const head = out.dry_run
      ? `Dry run, nothing written (${out.entries.length} entries): ${summary}.`
      : out.confirmation === 'declined' || out.confirmation === 'cancelled'
        ? `Not written: the user ${out.confirmation} the confirmation. Planned: ${summary}.`
        : refusedAll
          ? `Nothing written: none of the ${out.entries.length} entries could be sent (${summary}).`
          : `${out.complete ? 'Done' : 'INCOMPLETE'} (${out.entries.length} entries): ${summary}.`;
    const lines = [head];
    if (out.dry_run && !(c.new || c.changed || c.cleared)) {
      lines.push(refusedAll ? 'Nothing would be written: no entry is valid. Fix each as its reason says, then preview again.' : `Nothing would be written: every valid entry already has that limit${c.invalid || c.unknown_identity ? ', and the others are not valid' : ''}.`);
    }
    if (!out.complete) lines.push(...out.chunks.map((ch, i) => `chunk ${i + 1} (${ch.entries} entries): ${ch.outcome}${ch.error ? ` (${ch.error})` : ''}`));
    const domain = commonDomain(out.entries.map((e) => e.user));
    const interesting = out.entries.filter((e) => e.status !== 'unchanged');
    for (const e of interesting.slice(0, 40)) {
      const change = e.status === 'invalid' || e.status === 'unknown_identity' ? '' : ` ${e.before === null ? 'none' : e.before === '' ? 'cleared' : e.before} → ${e.after === '' ? 'cleared' : e.after}`;
      lines.push(`#${e.index} ${shortId(e.user, domain)} ${e.status}${change}${e.reason ? `: ${e.reason}` : ''}`);
    }
    if (interesting.length > 40) lines.push(`… ${interesting.length - 40} more in the structured result.`);
    if (domain) lines.push(`(emails ${domain}; resource ${out.resource ? shortResource(out.resource) : 'as given'}, monthly)`);
    if (out.dry_run && (c.new || c.changed || c.cleared)) lines.push('Call again with dry_run false to apply.');
    if (!out.dry_run && refusedAll) {
      lines.push('Fix each entry as its reason says (unknown_identity: check the spelling; the identity must belong to the organization), preview with dry_run: true, then call again.');
    }
    return lines.join('\n');
  },
});

interface Chunk {
  entries: number;
  outcome: 'applied' | 'failed' | 'not_sent' | 'outcome_unknown';
  error?: string;
}

/**
 * ANALYTICS_BILLING_PLAN, else what the existing overrides show. Looked up even when every entry names
 * its resource: a known plan stops a mismatched entry before it is sent.
 */
async function billingPlan(ctx: ToolContext): Promise<BillingPlan | undefined> {
  return ctx.config.billingPlan ?? ctx.client.inferPlan(ctx.signal);
}

const nothingValid = (entries: Array<{ status: string }>) => entries.every((e) => REFUSED.has(e.status));

const changeOf = (p: PlannedEntry): AuditChange => ({ identity: p.user, kind: p.kind, resource: p.resource!, period: p.period, before: p.before, after: p.after });

function digestOf(writes: PlannedEntry[]): string {
  return createHash('sha256')
    .update(JSON.stringify(writes.map((w) => [entryKey(w), w.resource, w.period, w.before, w.after])))
    .digest('hex');
}

function confirmMessage(writes: PlannedEntry[], ctx: ToolContext): string {
  const resources = new Set(writes.map((w) => w.resource));
  const mixed = resources.size > 1;
  const show = (p: PlannedEntry) => `${ctx.pii.text(p.user)}: ${p.before === null || p.before === '' ? 'none' : p.before} → ${p.after === '' ? 'cleared' : p.after}${mixed ? ` ${shortResource(p.resource ?? '')}` : ''}`;
  const lines = writes.slice(0, 15).map(show);
  if (writes.length > 15) lines.push(`… and ${writes.length - 15} more`);
  const unit = mixed ? 'monthly' : `monthly ${shortResource(writes[0]!.resource ?? '')}`;
  return `Apply ${writes.length} budget override change${writes.length > 1 ? 's' : ''} (${unit})?\n${lines.join('\n')}`;
}

/**
 * Sends the changes in chunks of at most 5000, in order, and stops at the first chunk that fails as a
 * whole: earlier chunks stay applied, later ones are not sent, and the answer says which is which. Each
 * chunk's intent is audited before it is sent and its outcome after, so a crash in between leaves a trace.
 */
async function apply(writes: PlannedEntry[], ctx: ToolContext): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for (let from = 0; from < writes.length; from += MAX_OVERRIDES_PER_SET) {
    const part = writes.slice(from, from + MAX_OVERRIDES_PER_SET);
    if (chunks.some((c) => c.outcome !== 'applied')) {
      for (const p of part) Object.assign(p, { status: 'not_sent', reason: 'an earlier chunk failed, so this one was not sent' });
      chunks.push({ entries: part.length, outcome: 'not_sent' });
      continue;
    }
    const chunk = newChunkId();
    try {
      ctx.audit({ phase: 'intent', chunk, changes: part.map(changeOf) });
    } catch (error) {
      const message = `the audit log could not be written (${error instanceof Error ? error.message : String(error)}), so this chunk was not sent; fix --audit-log (path, permissions, free space) and call again`;
      for (const p of part) Object.assign(p, { status: 'not_sent', reason: message });
      chunks.push({ entries: part.length, outcome: 'not_sent', error: message });
      continue;
    }
    const body: Override[] = part.map((p) => ({ ...identityRef(p), resource: p.resource!, period: p.period, config: { limit: p.after } }));
    let records: AuditRecord[];
    try {
      const { value } = await ctx.client.setOverrides(body, ctx.signal);
      // A failure names only the identity. When one identity has several entries in the chunk (possible
      // only while the plan is unknown), the failure cannot be pinned on one of them.
      const failed = new Map(value.failures.map((f) => [identityKey(f), f.error_message]));
      const perIdentity = new Map<string, number>();
      for (const p of part) perIdentity.set(entryKey(p), (perIdentity.get(entryKey(p)) ?? 0) + 1);
      for (const p of part) {
        const reason = failed.get(entryKey(p));
        if (reason === undefined) Object.assign(p, { status: 'applied' });
        else if (perIdentity.get(entryKey(p))! > 1) Object.assign(p, { status: 'outcome_unknown', reason: `upstream reported a failure for this identity without saying which of its entries: ${reason}` });
        else Object.assign(p, { status: 'failed', reason: `upstream: ${reason}` });
      }
      chunks.push({ entries: part.length, outcome: 'applied' });
      records = part.map((p) => ({ ...changeOf(p), outcome: p.status === 'applied' ? 'applied' : p.status === 'failed' ? 'failed' : 'unknown', ...(p.reason ? { reason: p.reason } : {}) }));
    } catch (error) {
      // Only a request that provably never left, or that the upstream refused as a whole, is known not to
      // have been applied. A cancellation after sending may have landed.
      const refused = ['invalid_argument', 'unauthenticated', 'permission_denied', 'rate_limited'];
      const never = isUpstreamError(error) && (error.neverReached || refused.includes(error.kind) || (error instanceof CancelledError && !error.afterSend));
      const message = toolErrorMessage(error);
      for (const p of part) Object.assign(p, { status: never ? 'failed' : 'outcome_unknown', reason: message });
      chunks.push({ entries: part.length, outcome: never ? 'failed' : 'outcome_unknown', error: message });
      records = part.map((p) => ({ ...changeOf(p), outcome: never ? 'failed' : 'unknown', reason: message }));
    }
    try {
      ctx.audit({ phase: 'outcome', chunk, records });
    } catch (error) {
      // The answer still tells what happened; the next start will point at this chunk as unfinished.
      ctx.log.error('could not write a budget write outcome to the audit log', { chunk, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return chunks;
}

function output(dryRun: boolean, plan: BillingPlan | undefined, confirmation: 'accepted' | 'declined' | 'cancelled' | 'not_asked', planned: PlannedEntry[], chunks: Chunk[]) {
  const counts: Record<string, number> = {};
  for (const p of planned) counts[p.status] = (counts[p.status] ?? 0) + 1;
  const resources = new Set(planned.map((p) => p.resource).filter(Boolean));
  return {
    dry_run: dryRun,
    resource: resources.size === 1 ? [...resources][0]! : plan ? (plan === 'usd' ? 'BUDGET_RESOURCE_USD_COST' : 'BUDGET_RESOURCE_CREDITS_CONSUMED') : null,
    confirmation,
    complete: chunks.every((c) => c.outcome === 'applied'),
    counts,
    entries: planned.map((p) => ({ index: p.index, user: p.user, kind: p.kind, resource: p.resource, before: p.before, after: p.after, status: p.status, ...(p.reason ? { reason: p.reason } : {}) })),
    chunks,
  };
}

