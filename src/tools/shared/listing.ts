import { listAll } from '../../upstream/listing/list-all.js';
import { z } from 'zod';
import { askedFreshnessSchema, type FreshnessOut } from '../../format/freshness.js';
import type { PageArgs } from '../../upstream/client.js';
import { effectiveSpan, type ListArgs, type Listing, type RangeArg } from '../../upstream/endpoint.js';
import type { Freshness } from '../../domain/freshness.js';
import type { PageShape } from '../../upstream/listing/pagination.js';
import { answerFreshness } from './complete-days.js';
import { assertCursor } from '../../privacy/identity-format.js';
import { userMatcher, type IdentityFields } from './rows.js';
import type { ToolContext } from '../types.js';

type AnyListing = Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>;
type RowOf<E extends AnyListing> = ReturnType<E['items']>[number];

export const tableOut = {
  total_rows: z.number().int(),
  returned_rows: z.number().int(),
  /** True when a paging cap stopped before all upstream data was read. */
  truncated: z.boolean(),
};
/** In raw-page mode, the cursor of the next page. */
export const pagingOut = { next_cursor: z.string().nullable() };
/** The fields every list tool's output ends with. */
export const listOut = { ...tableOut, ...pagingOut, freshness: askedFreshnessSchema };

/** What a list tool read: every row, the rows its `users` filter keeps, and where they came from. */
export interface Listed<T> {
  rows: T[];
  /** The rows the `users` filter keeps; every row without one. */
  matching: T[];
  /** The effective range or date, as the upstream applied it. */
  start: string;
  end: string;
  freshness: Freshness;
  /** The freshness as answered: data through the latest complete day at most, and what is not published yet. */
  published: FreshnessOut;
  truncated: boolean;
  /** In raw-page mode, the cursor of the next page. */
  next: string | null;
}

/** How the caller asked: one raw page (cursor and/or page_size) or everything, and for whom. */
export interface ListRequest extends PageArgs {
  users?: string[];
}

/** True when the caller asked for one raw upstream page (cursor and/or page_size) instead of everything. */
export function wantsRawPage(args: PageArgs): boolean {
  return args.cursor !== undefined || args.page_size !== undefined;
}

export function nextCursorOf(p: { has_more: boolean; next_cursor?: string } | undefined): string | null {
  return p?.has_more && p.next_cursor ? p.next_cursor : null;
}

/** The rows of the request a list tool declares (`requests.of`): every page, or the one raw page asked for. */
export function listAsked<A extends ListRequest, E extends AnyListing>(
  ctx: ToolContext,
  of: (args: A) => { listing: E; args: ListArgs<E> },
  args: A,
): Promise<Listed<RowOf<E>>> {
  const { listing, args: listArgs } = of(args);
  return listRows(ctx, listing, listArgs, args);
}

/**
 * The rows of a listing: every page (walked, split and merged by the client), or one raw upstream page
 * when cursor or page_size ask for it. `args` are what the listing takes: its dates and own parameters.
 */
export async function listRows<E extends AnyListing>(
  ctx: ToolContext,
  listing: E,
  args: ListArgs<E>,
  request: ListRequest,
): Promise<Listed<RowOf<E>>> {
  // Checked before any page is fetched: a malformed name fails fast.
  const match = await userMatcher(request.users, ctx);
  const read = wantsRawPage(request) ? await onePage(ctx, listing, args, request) : await everyPage(ctx, listing, args);
  const published = answerFreshness(ctx, read.freshness, args as RangeArg, read.end, listing.dates.rules);
  return { ...read, published, matching: match ? read.rows.filter((r) => match(r as IdentityFields)) : read.rows };
}

async function everyPage<E extends AnyListing>(
  ctx: ToolContext,
  listing: E,
  args: ListArgs<E>,
): Promise<Omit<Listed<RowOf<E>>, 'matching' | 'published'>> {
  const answer = await listAll(ctx, listing, args);
  return {
    rows: answer.data as RowOf<E>[],
    start: answer.start_date,
    end: answer.end_date,
    freshness: answer.freshness,
    truncated: answer.truncated,
    next: null,
  };
}

async function onePage<E extends AnyListing>(
  ctx: ToolContext,
  listing: E,
  args: ListArgs<E>,
  { cursor, page_size }: PageArgs,
): Promise<Omit<Listed<RowOf<E>>, 'matching' | 'published'>> {
  assertCursor(cursor);
  const { value, freshness } = await ctx.client.page(listing, { ...args, cursor, page_size }, ctx.signal);
  const [start, end] = effectiveSpan(listing, value);
  const rows = listing.items(value) as RowOf<E>[];
  return { rows, start, end, freshness, truncated: false, next: nextCursorOf(value.pagination) };
}

/** The row counts, paging state and freshness every list answer ends with (`listOut`). */
export function listOutput(all: readonly unknown[], rows: readonly unknown[], listed: Listed<unknown>) {
  return {
    total_rows: all.length,
    returned_rows: rows.length,
    truncated: listed.truncated,
    next_cursor: listed.next,
    freshness: listed.published,
  };
}
