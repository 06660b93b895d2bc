import type { ListingStatus } from '../upstream/listing/background-listings.js';

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** "user-activity page 23 of ~101, about 78 s left", or "user-activity page 23, total not known yet" */
export function progressMessage(s: ListingStatus): string {
  if (s.expected === null) return `${s.endpoint} page ${s.pages}, total not known yet`;
  return `${s.endpoint} page ${s.pages} of ~${Math.max(s.expected, s.pages)}, about ${seconds(s.etaMs)} s left`;
}

/** The status as of `now`: the time left shrinks as it passes. */
export function statusAt(s: ListingStatus, now: number): ListingStatus {
  return { ...s, etaMs: Math.max(0, s.etaMs - (now - s.at)), at: now };
}

/** 02:41:10 UTC */
const clock = (iso: string) => `${iso.slice(11, 19)} UTC`;

/** The text of an answer that is not complete yet: where the fetch is, when to ask again, and that nothing partial is shown. */
export function pendingText(
  tool: string,
  p: { pages_fetched: number; pages_expected: number | null; ready_at: string; retry_after_s: number },
  endpoint: string,
  waitS: number,
): string {
  if (p.pages_expected === null)
    return (
      `Not complete yet: ${endpoint} page ${p.pages_fetched} fetched, total not known yet. Call ${tool} again with the same ` +
      `arguments at about ${clock(p.ready_at)} (in ~${p.retry_after_s} s); that call waits up to ${waitS} s more for the rest. ` +
      'The fetch goes on in the background. No rows or totals are given until every page is in.'
    );
  return (
    `Not complete yet: ${endpoint} page ${p.pages_fetched} of ~${p.pages_expected} fetched; the full answer will be ready ` +
    `at about ${clock(p.ready_at)} (in ~${p.retry_after_s} s). Call ${tool} again with the same arguments after that; ` +
    'the fetch goes on in the background. No rows or totals are given until every page is in.'
  );
}
