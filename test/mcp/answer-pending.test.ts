import { describe, expect, it } from 'vitest';
import { pendingAnswer } from '../../src/mcp/answer-pending.js';
import { answerWithinMs } from '../../src/upstream/listing/list-all.js';
import type { ListingStatus } from '../../src/upstream/listing/background-listings.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');
const status = (expected: number | null, etaMs: number): ListingStatus => ({
  endpoint: 'user-activity',
  pages: 58,
  records: 5800,
  expected,
  etaMs,
  at: NOW,
});

describe('an answer that is not complete yet', () => {
  it('with the total known, sends the caller back a little after the walk should end', () => {
    const { structured, text } = pendingAnswer('get_user_activity', status(101, 43_000), 40_000, NOW);
    expect(structured.pending).toMatchObject({ pages_fetched: 58, pages_expected: 101, retry_after_s: 49 });
    expect(structured.pending.ready_at).toBe('2026-11-23T10:00:49.000Z');
    expect(text).toMatch(
      /^Not complete yet: user-activity page 58 of ~101 fetched; .* at about 10:00:49 UTC \(in ~49 s\)/,
    );
  });

  it('with the total unknown, sends the caller back within one wait, since that call waits for the rest', () => {
    // "As many pages again" guesses 58 s; the call then waits 40 s more, so coming back after ~45 s covers up to 85 s.
    const { structured, text } = pendingAnswer('get_user_activity', status(null, 58_000), 40_000, NOW);
    expect(structured.pending.pages_expected).toBeNull();
    expect(structured.pending.retry_after_s).toBe(45);
    expect(text).toContain('that call waits up to 40 s more for the rest');
    expect(text).toContain('No rows or totals are given until every page is in.');
  });

  it('always answers before the call timeout turns waiting into an error', () => {
    expect(answerWithinMs({ answerWithinS: 40, callTimeoutS: 42 })).toBe(40_000);
    expect(answerWithinMs({ answerWithinS: 40, callTimeoutS: 30 })).toBe(28_000);
  });
});
