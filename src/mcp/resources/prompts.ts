import { completable, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Redactor } from '../../privacy/redact.js';
import type { ProtocolFailure } from '../tool-errors.js';
import { checkedArgs } from '../input-validation.js';
import { NAMED_RANGES } from '../../domain/dates.js';

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

interface PromptSpec {
  name: string;
  title: string;
  description: string;
  /** The tools its text leads to: listed only when the server offers all of them. */
  needs: readonly string[];
  /** Takes a range argument, with this default. */
  range?: string;
  text(range: string, offered: (tool: string) => boolean, writable: boolean): string;
}

const PROMPTS: readonly PromptSpec[] = [
  {
    name: 'usage_report',
    title: 'Usage report',
    description: 'Adoption and activity over a period',
    needs: ['get_active_user_counts', 'get_daily_usage', 'get_user_activity'],
    range: 'last_30_days',
    text: (range, offered) =>
      `Write a short usage report for ${range}. Use get_active_user_counts (trend, weekdays vs weekends), get_daily_usage (totals), ` +
      `get_user_activity (top 10 by total_messages)` +
      (offered('get_editor_language_activity')
        ? ' and get_editor_language_activity with group_by editor and then language (yesterday). '
        : '. ') +
      (offered('get_changelog') ? 'Note product changes from get_changelog that may explain a shift. ' : '') +
      'Quote exact figures and say how fresh the data is.',
  },
  {
    name: 'budget_review',
    title: 'Budget review',
    description: 'Current overrides against recent credit use',
    needs: ['get_budget_overrides', 'get_credit_usage'],
    text: (_range, offered, writable) =>
      'Review budget overrides. Use get_budget_overrides for the current limits and get_credit_usage with range month_to_date for what each person has used; ' +
      'list people near or over their limit and overrides that look unused. ' +
      (writable && offered('set_budget_overrides')
        ? 'Propose changes; if I agree, call set_budget_overrides with dry_run true first and show me the diff before applying.'
        : 'This server is read-only: recommend changes, do not try to make them.'),
  },
  {
    name: 'cost_breakdown',
    title: 'Cost breakdown',
    description: 'Where the money goes, by model, product and user',
    needs: ['get_cost_analytics'],
    range: 'previous_month',
    text: (range) =>
      `Break down costs for ${range} with get_cost_analytics: group_by resource, then product, then user (top 10), and byok_status if customer keys are used. ` +
      'Give billed USD with shares and call out anything unusual. Amounts are exact decimals; do not round totals.',
  },
  {
    name: 'seat_review',
    title: 'Seats and adoption review',
    description: 'Who stopped using it, what is unusual, how adoption grows',
    needs: ['find_inactive_people', 'find_anomalies', 'get_adoption'],
    text: () =>
      'Review our seats and adoption. Use find_inactive_people for seats to reclaim (with their budget overrides), ' +
      'find_anomalies for what is unusual in the last 30 days (largest excess first), and get_adoption by month for growth, ' +
      'newcomers and how many of them stay. If an answer says it needs more history, tell me the sync command it names. ' +
      'Quote exact figures and say how fresh the data is.',
  },
];

/**
 * Short user-invoked templates that lead the assistant to the right tools. `writable`: whether the caller may
 * change budgets now (the tool inventory's answer), read as each prompt is asked for. `offered`: whether this
 * server has a tool (--toolsets may leave some out); a prompt is listed only when its tools are offered.
 */
export function registerPrompts(
  server: McpServer,
  writable: () => boolean,
  redact: Redactor,
  fail: ProtocolFailure,
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
      throw fail(error, 'prompt failed', { prompt });
    }
  };
  for (const prompt of PROMPTS) {
    if (!prompt.needs.every(offered)) continue;
    const { name, title, description } = prompt;
    if (prompt.range === undefined)
      server.registerPrompt(name, { title, description }, () => user(prompt.text('', offered, writable())));
    else
      server.registerPrompt(name, { title, description, argsSchema: advertisedRangeArg }, async (args) =>
        user(prompt.text((await rangeOf(name, args)) ?? prompt.range!, offered, writable())),
      );
  }
}
