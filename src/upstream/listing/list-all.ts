import type { Config } from '../../config/config.js';
import type { ListingStatus } from './background-listings.js';
import { z } from 'zod';
import type { ListingAnswer, AnalyticsClient } from '../client.js';
import type { ListArgs, Listing } from '../endpoint.js';
import type { PageShape } from './pagination.js';

type AnyListing = Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>;

/** What reading a listing within an answer budget takes: a tool's context is one, and so is the feed's reader. */
export interface ListReader {
  client: AnalyticsClient;
  config: Pick<Config, 'answerWithinS' | 'callTimeoutS'>;
  signal: AbortSignal;
  progress: (status: ListingStatus) => void;
}

/**
 * Thrown when a call's budget passed before its listing was complete; the server turns it into a
 * regular result with `complete: false` and no rows. The listing goes on in the background.
 */
export class AnswerPending extends Error {
  constructor(readonly status: ListingStatus) {
    super(`${status.endpoint} is not complete yet`);
  }
}

/**
 * How long a call waits for its data: --answer-within, but always short of --call-timeout, so that the
 * "not complete yet" answer arrives before the call's own budget turns it into an error.
 */
export function answerWithinMs(config: Pick<Config, 'answerWithinS' | 'callTimeoutS'>): number {
  const ceiling = Math.max(config.callTimeoutS * 0.8, config.callTimeoutS - 2);
  return Math.round(Math.min(config.answerWithinS, ceiling) * 1000);
}

/**
 * Every page of a listing within the call's answer budget. Past it, throws AnswerPending (the server
 * answers `complete: false` with when to ask again) while the walk goes on in the background; a call
 * with the same question meanwhile joins that walk. `withinMs`: what is left of the budget, for a
 * listing that starts after another one ended.
 */
export async function listAll<E extends AnyListing>(
  ctx: ListReader,
  listing: E,
  args: ListArgs<E>,
  withinMs = answerWithinMs(ctx.config),
): Promise<ListingAnswer<ReturnType<E['items']>>> {
  const waited = await ctx.client.background.list(ctx.client.resolve(listing, args), {
    signal: ctx.signal,
    answerWithinMs: Math.max(0, withinMs),
    onStatus: ctx.progress,
  });
  if (!waited.complete) throw new AnswerPending(waited.status);
  return waited.answer;
}
