import type { ServerContext } from '@modelcontextprotocol/server';
import { progressMessage, statusAt } from './progress-text.js';
import type { ListingStatus } from '../upstream/listing/background-listings.js';

/** Often enough that clients which give up after a silent spell (some after 10 s) hear from us: at most 5 s apart. */
const PROGRESS_EVERY_MS = 4000;

/**
 * notifications/progress for a call whose client asked (a progressToken): on each page, and every few
 * seconds while the call waits (queued behind the rate limit, or joined to a walk), with the page, the
 * pages expected and the time left. The value grows with every notification, as the protocol requires:
 * pages fetched, plus a fraction that creeps towards the next page while waiting.
 */
export function progressNotifier(ctx: ServerContext) {
  const token = ctx.mcpReq._meta?.progressToken;
  let last: ListingStatus | undefined;
  let sent = -1;
  let waits = 0;
  const send = (fresh: boolean) => {
    if (token === undefined || !last) return;
    const status = statusAt(last, Date.now());
    waits = fresh ? 0 : waits + 1;
    const value = Math.max(status.pages + (1 - 1 / (1 + waits)), sent + 1e-6);
    sent = value;
    const total = status.expected === null ? undefined : Math.max(status.expected, Math.floor(value) + 1);
    ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: value, total, message: progressMessage(status) },
      })
      .catch(() => {});
  };
  const timer = token === undefined ? undefined : setInterval(() => send(false), PROGRESS_EVERY_MS);
  timer?.unref();
  return {
    report(status: ListingStatus) {
      const fresh = status.pages !== last?.pages;
      last = status;
      send(fresh);
    },
    stop: () => clearInterval(timer),
  };
}
