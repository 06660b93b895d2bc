import { z } from 'zod';
import type { BillingPlan } from '../../contract/enums.js';
import { commonDomain, int, plural, shortId } from '../../format/text.js';
import type { Chunk } from './apply-budget-changes.js';
import { keptRows, REFUSED, refusedGroups } from './budget-answer-rows.js';
import { APPLY_ELSEWHERE, type ApplyPath, type Confirmation } from './budget-confirmation.js';
import type { PlannedEntry } from './budget-entries.js';
import { shortResource } from '../../domain/budget-resources.js';

const STATUS = [
  'new',
  'changed',
  'cleared',
  'unchanged',
  'invalid',
  'unknown_identity',
  'applied',
  'failed',
  'not_sent',
  'outcome_unknown',
] as const;

/**
 * The answer of set_budget_overrides: every entry counted, the refused ones grouped by reason, rows for a
 * bounded number of entries (see budget-answer-rows.ts), and what became of each chunk sent.
 */
export const writeAnswer = z.object({
  dry_run: z.boolean(),
  resource: z.string().nullable(),
  confirmation: z.enum(['accepted', 'declined', 'cancelled', 'not_asked']),
  to_apply: z.enum(['call_again', 'call_again_user_confirms', 'not_on_this_connection']).optional(),
  complete: z.boolean(),
  counts: z.record(z.string(), z.number().int()),
  refused: z.array(
    z.object({
      reason: z.string(),
      count: z.number().int(),
      first: z.array(z.string()),
    }),
  ),
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
  chunks: z.array(
    z.object({
      entries: z.number().int(),
      outcome: z.enum(['applied', 'failed', 'not_sent', 'outcome_unknown']),
      error: z.string().optional(),
    }),
  ),
});
type WriteAnswer = z.output<typeof writeAnswer>;

/** What a dry run says about applying: true for this connection (a write it cannot confirm is refused). */
const APPLY_TEXT: Record<ApplyPath, string> = {
  call_again: 'Call again with dry_run false to apply.',
  call_again_user_confirms: 'Call again with dry_run false to apply; the user is asked to confirm first.',
  not_on_this_connection: `Calling again with dry_run false would be refused: this connection cannot ask the user to confirm budget changes. ${APPLY_ELSEWHERE}`,
};

const entries = (n: number) => `${int(n)} ${plural(n, 'entry', 'entries')}`;
const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
const nothingValid = (counts: Record<string, number>) =>
  Object.entries(counts).every(([status, n]) => n === 0 || REFUSED.has(status));

/** Nothing applied because nothing was valid is a failure; a preview of it is not (it says so instead). */
export const isFailedWrite = (out: WriteAnswer) => !out.complete || (!out.dry_run && nothingValid(out.counts));

export function writeAnswerOf(
  dryRun: boolean,
  plan: BillingPlan | undefined,
  confirmation: Confirmation,
  planned: PlannedEntry[],
  chunks: Chunk[],
  toApply?: ApplyPath,
): WriteAnswer {
  const counts: Record<string, number> = {};
  for (const p of planned) counts[p.status] = (counts[p.status] ?? 0) + 1;
  const resources = new Set(planned.map((p) => p.resource).filter(Boolean));
  const head = {
    dry_run: dryRun,
    resource:
      resources.size === 1
        ? [...resources][0]!
        : plan
          ? plan === 'usd'
            ? 'BUDGET_RESOURCE_USD_COST'
            : 'BUDGET_RESOURCE_CREDITS_CONSUMED'
          : null,
    confirmation,
    ...(dryRun && toApply ? { to_apply: toApply } : {}),
    complete: chunks.every((c) => c.outcome === 'applied'),
    counts,
    refused: refusedGroups(planned),
  };
  return keptRows(
    planned,
    (kept): WriteAnswer => ({
      ...head,
      entries: kept.map((p) => ({
        index: p.index,
        user: p.user,
        kind: p.kind,
        resource: p.resource,
        before: p.before,
        after: p.after,
        status: p.status,
        ...(p.reason ? { reason: p.reason } : {}),
      })),
      chunks,
    }),
    (out) => Buffer.byteLength(JSON.stringify(out)) + Buffer.byteLength(writeAnswerText(out)),
  );
}

export function writeAnswerText(out: WriteAnswer): string {
  const c = out.counts;
  const n = total(c);
  // Applied first; then the planned statuses, then what became of the rest.
  const order = ['applied', ...STATUS.filter((s) => s !== 'applied')];
  const summary = order
    .filter((s) => c[s])
    .map((s) => `${s} ${int(c[s]!)}`)
    .join(', ');
  const refusedAll = nothingValid(c);
  const head = out.dry_run
    ? `Dry run, nothing written (${entries(n)}): ${summary}.`
    : out.confirmation === 'declined' || out.confirmation === 'cancelled'
      ? `Not written: the user ${out.confirmation} the confirmation. Planned: ${summary}.`
      : refusedAll
        ? `Nothing written: ${n === 1 ? 'the entry could not' : `none of the ${entries(n)} could`} be sent (${summary}).`
        : `${out.complete ? 'Done' : 'INCOMPLETE'} (${entries(n)}): ${summary}.`;
  const lines = [head];
  if (out.dry_run && !(c.new || c.changed || c.cleared)) {
    lines.push(
      refusedAll
        ? 'Nothing would be written: no entry is valid. Fix each as its reason says, then preview again.'
        : `Nothing would be written: every valid entry already has that limit${c.invalid || c.unknown_identity ? ', and the others are not valid' : ''}.`,
    );
  }
  if (!out.complete)
    lines.push(
      ...out.chunks.map(
        (ch, i) => `chunk ${i + 1} (${entries(ch.entries)}): ${ch.outcome}${ch.error ? ` (${ch.error})` : ''}`,
      ),
    );
  const domain = commonDomain([
    ...out.entries.map((e) => e.user),
    ...out.refused.flatMap((g) => g.first.map((f) => f.replace(/^#\d+ /, ''))),
  ]);
  // Refused entries all among the rows read best one by one; else by reason, and the rows list the others.
  const refusedRows = out.entries.filter((e) => REFUSED.has(e.status));
  const grouped = refusedRows.length < (c.invalid ?? 0) + (c.unknown_identity ?? 0);
  for (const g of grouped ? out.refused : []) {
    const first = g.first
      .map((f) => f.replace(/^(#\d+ )(.*)$/, (_, at: string, user: string) => at + shortId(user, domain)))
      .join(', ');
    const more = g.count - g.first.length;
    lines.push(`${int(g.count)} refused: ${g.reason} (${first}${more > 0 ? ` and ${int(more)} more` : ''})`);
  }
  const shown = out.entries.filter((e) => e.status !== 'unchanged' && !(grouped && REFUSED.has(e.status)));
  for (const e of shown) {
    const change = REFUSED.has(e.status)
      ? ''
      : ` ${e.before === null ? 'none' : e.before === '' ? 'cleared' : e.before} → ${e.after === '' ? 'cleared' : e.after}`;
    lines.push(`#${e.index} ${shortId(e.user, domain)} ${e.status}${change}${e.reason ? `: ${e.reason}` : ''}`);
  }
  if (out.entries.length < n)
    lines.push(
      `${entries(n - out.entries.length)} not listed one by one (the structured result has rows for ${int(out.entries.length)}); the counts above cover every entry.`,
    );
  if (domain)
    lines.push(`(emails ${domain}; resource ${out.resource ? shortResource(out.resource) : 'as given'}, monthly)`);
  if (out.dry_run && (c.new || c.changed || c.cleared)) lines.push(APPLY_TEXT[out.to_apply ?? 'call_again']);
  if (!out.dry_run && refusedAll) {
    lines.push(
      'Fix each entry as its reason says (unknown_identity: check the spelling; the identity must belong to the organization), preview with dry_run: true, then call again.',
    );
  }
  return lines.join('\n');
}
