import { CHANGELOG_CLIENTS, type ChangelogClient } from '../../contract/enums.js';
import { CHANGELOG_PAGE_SIZE } from '../../contract/limits.js';
import { ChangelogError, changelogUnavailable } from '../http/errors.js';
import type { Route } from '../http/route.js';
import type { EndpointContext } from '../state.js';

/** GET {site_url}/api/changelog: public, unauthenticated; unknown query parameters are ignored, as websites do. */
export function changelog(ctx: EndpointContext) {
  const pageRaw = ctx.query.get('page') ?? '0';
  if (!/^\d+$/.test(pageRaw) || !Number.isSafeInteger(Number(pageRaw))) {
    throw new ChangelogError(
      400,
      'INVALID_PAGE',
      `page must be an integer of 0 or more, got '${pageRaw}'.`,
      'Pass page as a zero-based integer, for example page=0.',
    );
  }
  const client = ctx.query.get('client') ?? 'all';
  if (!CHANGELOG_CLIENTS.includes(client as ChangelogClient)) {
    throw new ChangelogError(
      400,
      'INVALID_CLIENT',
      `client '${client}' is not supported.`,
      `Use one of: ${CHANGELOG_CLIENTS.join(', ')}.`,
    );
  }
  if (ctx.state.changelogUnavailable) throw changelogUnavailable();
  const page = Number(pageRaw);
  const matching = client === 'all' ? ctx.state.changelog : ctx.state.changelog.filter((e) => e.client === client);
  const entries = matching.slice(page * CHANGELOG_PAGE_SIZE, (page + 1) * CHANGELOG_PAGE_SIZE);
  return {
    entries,
    total: matching.length,
    page,
    pageSize: CHANGELOG_PAGE_SIZE,
    hasMore: (page + 1) * CHANGELOG_PAGE_SIZE < matching.length,
    client,
  };
}

export const CHANGELOG_PATH = '/api/changelog';
export const routes: Route[] = [
  { path: CHANGELOG_PATH, method: 'GET', scope: null, group: 'general', handle: changelog },
];
