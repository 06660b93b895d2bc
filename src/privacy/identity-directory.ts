import { UserInputError } from '../errors.js';
import { clip } from '../format/text.js';
import type { Pseudonymizer } from './pii.js';
import { emailProblem } from './identity-format.js';
import type { AnalyticsClient } from '../upstream/client.js';
import { getUserBudgetOverrides } from '../upstream/endpoints/get-user-budget-overrides.js';
import { userActivity } from '../upstream/endpoints/user-activity.js';

/**
 * Resolves what a caller names as a user (an email or a pseudonym) to the real email. Pseudonyms shown in
 * earlier answers are known; an unknown one triggers one look through recent activity and the overrides
 * before it is refused.
 */
export class IdentityDirectory {
  private lastLookup = 0;
  constructor(
    private readonly client: AnalyticsClient,
    private readonly pii: Pseudonymizer,
  ) {}

  async resolve(text: string, signal: AbortSignal): Promise<string> {
    const malformed = emailProblem(text);
    if (malformed) throw new UserInputError(malformed);
    const known = this.pii.resolve(text);
    if (known !== undefined) return known;
    if (Date.now() - this.lastLookup > 60_000) {
      const [activity, overrides] = await Promise.all([
        this.client.list(userActivity, { range: 'last_90_days' }, { signal }),
        this.client.call(getUserBudgetOverrides, {}, signal),
      ]);
      this.pii.learn(activity.data.flatMap((u) => (u.user_email ? [u.user_email] : [])));
      this.pii.learn(overrides.value.overrides.flatMap((o) => (o.user_email ? [o.user_email] : [])));
      // Throttled only once a look-up succeeded: a failed one must not hide pseudonyms for a minute.
      this.lastLookup = Date.now();
    }
    const found = this.pii.resolve(text);
    if (found === undefined)
      throw new UserInputError(`Unknown pseudonym '${clip(text)}': use a pseudonym from an earlier answer`);
    return found;
  }
}

const directories = new WeakMap<AnalyticsClient, IdentityDirectory>();
/** One directory per upstream client: every server instance built on it (one per connection) shares it. */
export function identityDirectory(client: AnalyticsClient, pii: Pseudonymizer): IdentityDirectory {
  let d = directories.get(client);
  if (!d) directories.set(client, (d = new IdentityDirectory(client, pii)));
  return d;
}
