import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { pendingText, statusAt } from './progress-text.js';
import type { ListingStatus } from '../upstream/listing/background-listings.js';
import { compactSchema } from './compact-schema.js';

export const pendingOut = z.object({
  pages_fetched: z.number().int(),
  /** null: no earlier walk of this listing tells how many pages it takes. */
  pages_expected: z.number().int().nullable(),
  ready_at: z.string(),
  retry_after_s: z.number().int(),
  message: z.string(),
});
export type PendingOut = z.output<typeof pendingOut>;

const incomplete = z.strictObject({ complete: z.literal(false), pending: pendingOut });
// A budget write has its own `complete` (every chunk applied); only `pending` marks an answer still being fetched.
const isPending = (value: unknown) =>
  typeof value === 'object' && value !== null && (value as { pending?: unknown }).pending !== undefined;

/**
 * The output schema a tool advertises: its own fields plus `complete` and, when false, `pending`. An
 * incomplete answer carries only those two, so it is checked against them alone; output schemas are
 * advertised without `required` (see compactSchema), so it matches the advertised schema as well.
 */
export function answerSchema(output: z.ZodObject): StandardSchemaWithJSON<unknown, unknown> {
  const full = output.extend({ complete: z.boolean(), pending: pendingOut.optional() });
  const std = (compactSchema(full, 'output') as StandardSchemaWithJSON<unknown, unknown>)['~standard'];
  // `pending` is advertised as a bare object: every tool has it, the tool list is read on every turn,
  // and the model reads what it holds from the answer's text; the server still checks it in full.
  const lean =
    (make: (o: never) => Record<string, unknown>) =>
    (options: never): Record<string, unknown> => {
      const json = make(options) as { properties: Record<string, unknown> };
      return { ...json, properties: { ...json.properties, pending: { type: 'object' } } };
    };
  return {
    '~standard': {
      ...std,
      jsonSchema: { input: lean(std.jsonSchema.input), output: lean(std.jsonSchema.output) },
      validate: (value: unknown) => (isPending(value) ? incomplete['~standard'].validate(value) : std.validate(value)),
    },
  } as StandardSchemaWithJSON<unknown, unknown>;
}

/**
 * The structured and text content of an answer that is not complete yet. `waitMs`: how long a call waits
 * for the walk. With the total known, the call again comes when the walk should be done; without it, no
 * later than one wait from now, since that call itself waits `waitMs` more: a guess that runs long then
 * costs no extra turn.
 */
export function pendingAnswer(tool: string, status: ListingStatus, waitMs: number, now = Date.now()) {
  const eta = statusAt(status, now).etaMs;
  const left = status.expected === null ? Math.min(eta, waitMs) : eta;
  // A little late rather than early when the total is known: an early call would only wait for the rest.
  const retryAfterS = Math.max(1, Math.ceil((left * 1.1 + 1000) / 1000));
  const fields = {
    pages_fetched: status.pages,
    pages_expected: status.expected === null ? null : Math.max(status.expected, status.pages + 1),
    ready_at: new Date(now + retryAfterS * 1000).toISOString(),
    retry_after_s: retryAfterS,
  };
  const message = pendingText(tool, fields, status.endpoint, Math.round(waitMs / 1000));
  return { text: message, structured: { complete: false as const, pending: { ...fields, message } } };
}
