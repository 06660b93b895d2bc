import { getUserBudgetOverrides } from '../../upstream/endpoints/get-user-budget-overrides.js';
import { InvalidArgumentError } from '../../upstream/errors.js';
import { identityKey } from '../../upstream/listing/merge.js';
import { entryKey, type PlannedEntry } from './budget-entries.js';
import type { ToolContext } from '../types.js';

/**
 * Current overrides of the named identities. The API answers 400 listing every unknown identity; those
 * are set aside and the rest read again, so one unknown name never hides the others' state. When the
 * list cannot be read from the message, the error stands: guessing would misstate what exists.
 */
export async function readCurrent(
  entries: PlannedEntry[],
  ctx: ToolContext,
): Promise<{ current: Map<string, string>; unknown: Set<string> }> {
  const unknown = new Set<string>();
  for (let attempt = 0; attempt < 3; attempt++) {
    const names = uniqueNames(entries.filter((p) => !unknown.has(entryKey(p))));
    if (!names.user_emails.length && !names.service_account_names.length) return { current: new Map(), unknown };
    try {
      const { value } = await ctx.client.call(getUserBudgetOverrides, names, ctx.signal);
      const current = new Map(
        value.overrides.map((o) => [`${identityKey(o)}|${o.resource}|${o.period}`, o.config.limit]),
      );
      return { current, unknown };
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      const listed = listedNames(error.message);
      const named = [
        ...names.user_emails.map((e) => identityKey({ user_email: e })),
        ...names.service_account_names.map((s) => identityKey({ service_account_name: s })),
      ];
      const found = named.filter((key) => listed.has(key));
      if (found.length === 0) throw error;
      for (const key of found) unknown.add(key);
    }
  }
  // The upstream's refusal, restated: it goes through the error funnel like the 400s it sums up.
  throw new InvalidArgumentError(
    'Could not read the current budget overrides: the upstream kept refusing the identities. Check the emails and service-account names',
    getUserBudgetOverrides.name,
  );
}

function uniqueNames(entries: PlannedEntry[]) {
  return {
    user_emails: [...new Set(entries.filter((p) => p.kind === 'user').map((p) => p.user.toLowerCase()))],
    service_account_names: [...new Set(entries.filter((p) => p.kind === 'service_account').map((p) => p.user))],
  };
}

/**
 * The identities an "unknown identities" message lists: the comma-separated items after its last colon,
 * as identity keys (an item with @ as an email, any other as a service-account name).
 */
export function listedNames(message: string): Set<string> {
  const colon = message.lastIndexOf(':');
  if (colon < 0) return new Set();
  const items = message
    .slice(colon + 1)
    .split(',')
    .map((item) =>
      item
        .trim()
        .replace(/\.$/, '')
        .replace(/^['"]|['"]$/g, ''),
    )
    .filter(Boolean);
  return new Set(
    items.map((item) => identityKey(item.includes('@') ? { user_email: item } : { service_account_name: item })),
  );
}
