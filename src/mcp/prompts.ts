import { completable, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { Redactor } from '../privacy/redact.js';
import { logFailure, protocolErrorOf } from './tool-errors.js';
import { checkedArgs } from '../tools/shared/input-validation.js';
import { NAMED_RANGES } from '../domain/dates.js';

/**
 * As registered with the SDK: listed and completed, but taking any text, since the SDK would refuse a
 * bad range in zod's bare words; `rangeArg` checks it in the handler instead, in the funnel's words.
 */
const advertisedRangeArg = z.object({
  range: completable(z.string(), (value) => NAMED_RANGES.filter((r) => r.startsWith(value ?? '')))
    .optional()
    .describe('e.g. last_30_days or previous_month'),
});
const rangeArg = z.object({ range: z.enum(NAMED_RANGES).optional() });

/**
 * Short user-invoked templates that lead the assistant to the right tools. `writable`: whether the caller may
 * change budgets now (the tool inventory's answer), read as each prompt is asked for. `offered`: whether this
 * server has a tool (--toolsets may leave some out); a prompt names only those.
 */
export function registerPrompts(
  server: McpServer,
  writable: () => boolean,
  redact: Redactor,
  log: Logger,
  offered: (tool: string) => boolean = () => true,
): void {
  const user = (text: string) => ({
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: redact.text(text) } }],
  });
  /** The range a prompt was given, checked; a bad one fails prompts/get as a JSON-RPC error in the funnel's words. */
  const rangeOf = async (prompt: string, args: unknown) => {
    try {
      return (await checkedArgs(prompt, rangeArg, args)).range;
    } catch (error) {
      logFailure(log, 'prompt failed', error, { prompt });
      throw protocolErrorOf(error, redact);
    }
  };
  server.registerPrompt(
    'usage_report',
    { title: 'Usage report', description: 'Adoption and activity over a period', argsSchema: advertisedRangeArg },
    async (args) => {
      const range = await rangeOf('usage_report', args);
      return user(
        `Write a short usage report for ${range ?? 'last_30_days'}. Use get_active_user_counts (trend, weekdays vs weekends), get_daily_usage (totals), ` +
          `get_user_activity (top 10 by total_messages)` +
          (offered('get_editor_language_activity')
            ? ' and get_editor_language_activity with group_by editor and then language (yesterday). '
            : '. ') +
          'Quote exact figures and say how fresh the data is.',
      );
    },
  );
  server.registerPrompt(
    'budget_review',
    { title: 'Budget review', description: 'Current overrides against recent credit use' },
    () =>
      user(
        'Review budget overrides. Use get_budget_overrides for the current limits and get_credit_usage with range month_to_date for what each person has used; ' +
          'list people near or over their limit and overrides that look unused. ' +
          (writable()
            ? 'Propose changes; if I agree, call set_budget_overrides with dry_run true first and show me the diff before applying.'
            : 'This server is read-only: recommend changes, do not try to make them.'),
      ),
  );
  server.registerPrompt(
    'cost_breakdown',
    {
      title: 'Cost breakdown',
      description: 'Where the money goes, by model, product and user',
      argsSchema: advertisedRangeArg,
    },
    async (args) => {
      const range = await rangeOf('cost_breakdown', args);
      return user(
        `Break down costs for ${range ?? 'previous_month'} with get_cost_analytics: group_by resource, then product, then user (top 10), and byok_status if customer keys are used. ` +
          'Give billed USD with shares and call out anything unusual. Amounts are exact decimals; do not round totals.',
      );
    },
  );
}
