import { createHash } from 'node:crypto';
import { UserInputError } from '../../errors.js';
import { entryKey, type PlannedEntry } from './budget-entries.js';
import { shortResource } from '../../domain/budget-resources.js';
import type { ToolContext } from '../types.js';

export type Confirmation = 'accepted' | 'declined' | 'cancelled' | 'not_asked';

/** How the changes can be applied when this connection cannot ask for the confirmation they need. */
export const APPLY_ELSEWHERE =
  'To apply them, the user makes the change in an MCP client that can show a confirmation form (elicitation); for trusted automation, whoever runs the server starts it with --confirm-writes never.';

/** How a write would go from this call's connection: sent, sent once the user confirms, or refused. */
export type ApplyPath = 'call_again' | 'call_again_user_confirms' | 'not_on_this_connection';
export function howToApply(ctx: ToolContext): ApplyPath {
  if (!ctx.confirmation) return 'call_again';
  return ctx.confirmation.answer ? 'call_again_user_confirms' : 'not_on_this_connection';
}

/**
 * The user's answer to exactly these writes, when the server may ask: ends the call to ask (confirmation.ask),
 * and refuses to write when this connection cannot ask at all. 'not_asked' when confirmation is off.
 */
export async function confirmWrites(writes: PlannedEntry[], ctx: ToolContext): Promise<Confirmation> {
  if (!ctx.confirmation) return 'not_asked';
  if (!ctx.confirmation.answer)
    throw new UserInputError(
      `Nothing was written: budget changes need the user's confirmation, and ${ctx.confirmation.why}.`,
      `Calling again is refused the same way, whatever the arguments; dry_run: true still previews the changes. ${APPLY_ELSEWHERE}`,
    );
  const digest = digestOf(writes);
  const answer = await ctx.confirmation.answer(digest);
  if (answer === 'missing' || answer === 'stale') return ctx.confirmation.ask(confirmMessage(writes, ctx), digest);
  return answer;
}

function digestOf(writes: PlannedEntry[]): string {
  return createHash('sha256')
    .update(JSON.stringify(writes.map((w) => [entryKey(w), w.resource, w.period, w.before, w.after])))
    .digest('hex');
}

function confirmMessage(writes: PlannedEntry[], ctx: ToolContext): string {
  const resources = new Set(writes.map((w) => w.resource));
  const mixed = resources.size > 1;
  const show = (p: PlannedEntry) =>
    `${ctx.pii.text(p.user)}: ${p.before === null || p.before === '' ? 'none' : p.before} → ${p.after === '' ? 'cleared' : p.after}${mixed ? ` ${shortResource(p.resource ?? '')}` : ''}`;
  const lines = writes.slice(0, 15).map(show);
  if (writes.length > 15) lines.push(`… and ${writes.length - 15} more`);
  const unit = mixed ? 'monthly' : `monthly ${shortResource(writes[0]!.resource ?? '')}`;
  return `Apply ${writes.length} budget override change${writes.length > 1 ? 's' : ''} (${unit})?\n${lines.join('\n')}`;
}
