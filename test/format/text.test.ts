import { describe, expect, it } from 'vitest';
import {
  clip,
  commonDomain,
  duration,
  int,
  percent,
  plural,
  scopesText,
  shortId,
  table,
  usd,
  usdWhole,
} from '../../src/format/text.js';
import { freshnessLine } from '../../src/format/freshness.js';

describe('text helpers', () => {
  it.each([
    ['1234.5678', '$1,234.57'],
    ['0.004', '$0.00'],
    ['0.005', '$0.01'],
    ['19582.73', '$19,582.73'],
    ['-2.5', '-$2.50'],
  ])('usd(%s) = %s', (v, t) => expect(usd(v)).toBe(t));

  it.each([
    ['8430.08', '$8,430'],
    ['6863.94', '$6,864'],
    ['0.49', '$0'],
    ['999.5', '$1,000'],
    ['123456789012345678.9', '$123,456,789,012,345,679'],
  ])('usdWhole(%s) = %s', (v, t) => expect(usdWhole(v)).toBe(t));

  it('formats integers, shares and tables', () => {
    expect(int(1234567)).toBe('1,234,567');
    expect(int('9214775806402117')).toBe('9,214,775,806,402,117');
    expect(percent(43, 100)).toBe('43%');
    expect(percent(1, 300)).toBe('0.3%');
    expect(percent(1, 0)).toBe('0%');
    expect(
      table(
        ['a', 'b'],
        [
          [1, null],
          ['x', ''],
        ],
      ),
    ).toBe('a | b\n1 | -\nx | -');
  });

  it('factors out a shared email domain, and only a shared one', () => {
    expect(commonDomain(['a@x.io', 'b@x.io', 'ci-bot'])).toBe('@x.io');
    expect(commonDomain(['a@x.io', 'b@y.io'])).toBeUndefined();
    expect(shortId('a@x.io', '@x.io')).toBe('a');
    expect(shortId('ci-bot', '@x.io')).toBe('ci-bot');
  });

  it('says how fresh the data is', () => {
    expect(
      freshnessLine({
        data_through: '2026-11-20',
        fetched_at: '2026-11-21T09:00:00.000Z',
        from_cache: true,
        next_refresh_at: '2026-11-22T02:00:00.000Z',
        source: 'cache',
      }),
    ).toBe('data through 2026-11-20; next refresh ~02:00 UTC; served from cache (fetched 2026-11-21 09:00 UTC)');
    expect(
      freshnessLine({
        data_through: '2026-11-21',
        fetched_at: '2026-11-21T10:00:00.000Z',
        from_cache: false,
        next_refresh_at: '2026-11-21T11:30:00.000Z',
        source: 'live',
      }),
    ).toBe('data through 2026-11-21; next refresh ~11:30 UTC');
    expect(
      freshnessLine({
        data_through: '2026-11-21',
        fetched_at: '2026-11-22T04:00:00.000Z',
        from_cache: false,
        next_refresh_at: '2026-11-23T03:00:00.000Z',
        source: 'history',
      }),
    ).toBe('data through 2026-11-21; next refresh ~03:00 UTC; from the history store');
  });

  it('names the days asked for that are not published yet, after data through', () => {
    const early = {
      data_through: '2026-11-19',
      from_cache: false,
      fetched_at: '2026-11-21T01:10:00.000Z',
      next_refresh_at: '2026-11-21T03:00:00.000Z',
      source: 'live' as const,
    };
    expect(freshnessLine({ ...early, not_published: ['2026-11-20'] })).toBe(
      'data through 2026-11-19; 2026-11-20 is not published yet (~03:00 UTC); next refresh ~03:00 UTC',
    );
    expect(
      freshnessLine({ ...early, data_through: '2026-11-18', not_published: ['2026-11-19', '2026-11-20'] }),
    ).toMatch(/^data through 2026-11-18; 2026-11-19 and 2026-11-20 are not published yet/);
    // Nothing asked for beyond it: nothing said.
    expect(freshnessLine(early)).toBe('data through 2026-11-19; next refresh ~03:00 UTC');
  });
});

describe('words for counts, durations, scopes and echoed values', () => {
  it.each([
    [1, 'entry', 'entries', 'entry'],
    [0, 'entry', 'entries', 'entries'],
    [2, 'day', undefined, 'days'],
    [1n, 'person', 'people', 'person'],
  ] as const)('plural(%s, %s)', (n, one, many, word) => {
    expect(plural(n, one, many)).toBe(word);
  });

  it.each([
    [0, '0 ms'],
    [412.4, '412 ms'],
    [999, '999 ms'],
    [3400, '3.4 s'],
    [95_000, '95 s'],
    [5 * 60_000, '5 minutes'],
    [60_000 * 1.2, '72 s'],
    [150_000, '3 minutes'],
  ])('duration(%s) is %s, never "0 s"', (ms, text) => {
    expect(duration(ms)).toBe(text);
  });

  it.each([
    [['read'], 'the read scope'],
    [['read', 'write'], 'the read and write scopes'],
    [[], 'no scope'],
  ])('scopesText(%j)', (scopes, text) => {
    expect(scopesText(scopes)).toBe(text);
  });

  it('clip keeps 79 characters and an ellipsis of anything over 80', () => {
    expect(clip('x'.repeat(80))).toBe('x'.repeat(80));
    expect(clip('x'.repeat(81))).toBe(`${'x'.repeat(79)}…`);
  });
});
