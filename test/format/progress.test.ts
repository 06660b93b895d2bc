import { describe, expect, it } from 'vitest';
import { pendingText, progressMessage, statusAt } from '../../src/mcp/progress-text.js';
import type { ListingStatus } from '../../src/upstream/listing/listing-walk.js';

const status = (over: Partial<ListingStatus>): ListingStatus => ({
  endpoint: 'user-activity',
  pages: 23,
  records: 2_300,
  expected: 101,
  etaMs: 77_200,
  at: 1_000,
  ...over,
});

describe('progress while a listing is fetched', () => {
  it('says the page, the expected total and the seconds left, rounded up', () => {
    expect(progressMessage(status({}))).toBe('user-activity page 23 of ~101, about 78 s left');
    expect(progressMessage(status({ expected: null }))).toBe('user-activity page 23, total not known yet');
  });

  it('never expects fewer pages than it has, nor says 0 s left', () => {
    expect(progressMessage(status({ pages: 120, expected: 101, etaMs: 0 }))).toBe(
      'user-activity page 120 of ~120, about 1 s left',
    );
  });

  it('counts the time left down as it passes, not below zero', () => {
    expect(statusAt(status({}), 11_000)).toMatchObject({ etaMs: 67_200, at: 11_000 });
    expect(statusAt(status({}), 500_000).etaMs).toBe(0);
  });

  it('tells a pending answer when to call again, and that no partial rows are given', () => {
    const pending = { pages_fetched: 40, pages_expected: 101, ready_at: '2026-11-25T02:41:10.000Z', retry_after_s: 61 };
    const text = pendingText('get_user_activity', pending, 'user-activity', 40);
    expect(text).toContain('page 40 of ~101');
    expect(text).toContain('at about 02:41:10 UTC (in ~61 s)');
    expect(text).toContain('No rows or totals are given until every page is in.');
    const unknown = pendingText('get_user_activity', { ...pending, pages_expected: null }, 'user-activity', 40);
    expect(unknown).toContain('total not known yet');
    expect(unknown).toContain('waits up to 40 s more');
  });
});
