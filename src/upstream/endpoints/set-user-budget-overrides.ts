import { z } from 'zod';
import { MAX_OVERRIDES_PER_SET } from '../../contract/limits.js';
import { defineOperation } from '../endpoint.js';
import { UserInputError } from '../../errors.js';
import { withIdentity } from '../schemas.js';

export const overrideSchema = withIdentity({
  resource: z.string(),
  period: z.string(),
  config: z.object({ limit: z.string() }),
});
export type Override = z.infer<typeof overrideSchema>;
export const setOverridesSchema = z.object({ failures: z.array(withIdentity({ error_message: z.string() })) });
export type SetOverrides = z.infer<typeof setOverridesSchema>;

/** The body: 1 to 5000 overrides, counted before anything is sent. */
function overridesBody({ overrides }: { overrides: Override[] }): Record<string, unknown> {
  if (overrides.length < 1 || overrides.length > MAX_OVERRIDES_PER_SET) {
    throw new UserInputError(`A set request takes 1 to ${MAX_OVERRIDES_PER_SET} overrides, got ${overrides.length}.`);
  }
  return { overrides };
}

/** One set request; never cached, and retried only if it provably never reached the upstream. */
export const setUserBudgetOverrides = defineOperation({
  name: 'set-user-budget-overrides',
  method: 'POST',
  retry: 'write',
  encode: overridesBody,
  schema: setOverridesSchema,
  cache: null,
});
