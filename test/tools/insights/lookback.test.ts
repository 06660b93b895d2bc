import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { earliestDay } from '../../../src/domain/dates.js';
import { formatDay, parseIsoDay } from '../../../src/util/utc-date.js';
import { harness, truthAll, type Harness } from '../../helpers/mcp.js';
import { TODAY } from '../../helpers/sim.js';

// Today is 2026-11-21: the API looks back to 2024-11-21 (a Thursday), and refuses (400) anything earlier.
const EARLIEST = formatDay(earliestDay(parseIsoDay(TODAY)!));

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 120 } });
});
afterAll(() => h.close());

/** Calls a tool and returns its answer with the requests it sent, and how many the simulator refused. */
async function sent(name: string, args: Record<string, unknown>) {
  h.sim.clearRequests();
  const answer = await h.call(name, args);
  const requests = h.sim.requests();
  return { answer, requests, refused: requests.filter((r) => r.status === 400).length };
}

const startsOf = (requests: ReturnType<Harness['sim']['requests']>) =>
  requests.flatMap((r) => [r.query.start_date, r.query.date, (r.body as any)?.start_date]).filter(Boolean);

/** The people (emails, lower-cased) the upstream lists in user activity over [start, end]. */
async function activeIn(start: string, end: string): Promise<number> {
  const rows = await truthAll(h.sim, 'user-activity', 'users', { start_date: start, end_date: end });
  return rows.filter((r) => r.user_email).length;
}

describe('questions that reach past the 2-year lookback send nothing beyond it', () => {
  it('get_adoption counts a first week that begins before the lookback from its earliest day, and says so', async () => {
    expect(EARLIEST).toBe('2024-11-21');
    const { answer, requests, refused } = await sent('get_adoption', {
      granularity: 'week',
      start_date: EARLIEST,
      end_date: '2024-12-08',
    });
    expect(answer.isError, answer.text).toBe(false);
    expect(refused).toBe(0);
    expect(requests.length).toBeGreaterThan(0);
    expect(startsOf(requests).every((d) => d >= EARLIEST)).toBe(true);
    const [first, second] = answer.structured.periods;
    expect(first).toMatchObject({ start_date: '2024-11-18', end_date: '2024-11-24', partial: true });
    expect(first.active).toBe(await activeIn(EARLIEST, '2024-11-24'));
    expect(second).toMatchObject({ start_date: '2024-11-25', partial: false });
    expect(answer.structured.covers).toMatch(/2024-11-18\.\.2024-11-20 left out: the API keeps 2 years/);
    expect(answer.text).toContain(answer.structured.covers);
  });

  it('get_adoption does the same for a first month', async () => {
    const { answer, refused } = await sent('get_adoption', {
      granularity: 'month',
      start_date: '2024-11-30',
      end_date: '2025-01-31',
    });
    expect(answer.isError, answer.text).toBe(false);
    expect(refused).toBe(0);
    expect(answer.structured.periods[0]).toMatchObject({ start_date: '2024-11-01', partial: true });
    expect(answer.structured.periods[0].active).toBe(await activeIn(EARLIEST, '2024-11-30'));
    expect(answer.structured.covers).toMatch(/2024-11-01\.\.2024-11-20 left out/);
  });

  it('find_anomalies leaves out the days whose 28-day baselines lie beyond the lookback, and judges the rest', async () => {
    const { answer, requests, refused } = await sent('find_anomalies', {
      start_date: EARLIEST,
      end_date: '2025-01-10',
      limit: 100,
    });
    expect(answer.isError, answer.text).toBe(false);
    expect(refused).toBe(0);
    expect(startsOf(requests).every((d) => d >= EARLIEST)).toBe(true);
    // 28 days from 2024-11-21: the first day judged is 2024-12-19.
    expect(answer.structured.left_out).toEqual({ start_date: EARLIEST, end_date: '2024-12-18' });
    expect(answer.structured.needs).toMatch(/baselines lie beyond the API's 2-year lookback/);
    expect(answer.structured.anomalies.every((a: any) => a.date >= '2024-12-19')).toBe(true);
  });

  it('find_anomalies with no day whose baseline is within the lookback judges none, and sends nothing beyond it', async () => {
    const { answer, requests, refused } = await sent('find_anomalies', {
      start_date: EARLIEST,
      end_date: '2024-12-01',
    });
    expect(answer.isError, answer.text).toBe(false);
    expect(refused).toBe(0);
    expect(startsOf(requests).every((d) => d >= EARLIEST)).toBe(true);
    expect(answer.structured).toMatchObject({ count: 0, left_out: { start_date: EARLIEST, end_date: '2024-12-01' } });
  });

  it('find_inactive_people starts a 730-day lookback at the earliest day before the refresh hour, and says so', async () => {
    // At 01:00 the latest complete day is 2026-11-19: 730 days back from it would start on 2024-11-20.
    h.sim.clock.set('2026-11-21T01:00:00Z');
    try {
      const { answer, requests, refused } = await sent('find_inactive_people', { lookback_days: 730 });
      expect(answer.isError, answer.text).toBe(false);
      expect(refused).toBe(0);
      expect(startsOf(requests).every((d) => d >= EARLIEST)).toBe(true);
      expect(answer.structured).toMatchObject({ start_date: EARLIEST, end_date: '2026-11-19' });
      expect(answer.structured.covers).toMatch(/starts on 2024-11-21, 729 days rather than 730: the API keeps 2 years/);
    } finally {
      h.sim.clock.set('2026-11-21T10:00:00.000Z');
    }
  });
});
