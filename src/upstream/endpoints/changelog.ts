import { z } from 'zod';
import { defineOperation } from '../endpoint.js';
import { UserInputError } from '../../errors.js';
import { changelogPolicy } from '../../domain/freshness.js';
import { count } from '../schemas.js';

export const changelogSchema = z.object({
  entries: z.array(z.record(z.string(), z.unknown())),
  total: count,
  page: count,
  pageSize: count,
  hasMore: z.boolean(),
  client: z.string(),
});
export type Changelog = z.infer<typeof changelogSchema>;

/** The query: a page number of 0 or more, checked, and the client filter. */
function changelogQuery({ client = 'all', page = 0 }: { client?: string; page?: number }): Record<string, unknown> {
  if (!Number.isSafeInteger(page) || page < 0) {
    throw new UserInputError(`page must be a whole number of 0 or more, got ${page}.`);
  }
  return { page, client };
}

/** The public changelog, on the site host: no token, not rate limited, paged by page number. */
export const changelog = defineOperation({
  name: 'changelog',
  host: 'site',
  path: '/api/changelog',
  encode: changelogQuery,
  schema: changelogSchema,
  group: null,
  cache: changelogPolicy,
});
