import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { costAnalytics } from '../../src/upstream/endpoints/cost-analytics.js';
import { dau } from '../../src/upstream/endpoints/dau.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';
import { requestKey, written } from '../../src/upstream/request.js';
import { parseIsoDay } from '../../src/util/utc-date.js';
import { clientFor, requestsTo } from '../helpers/client.js';
import { NOW } from '../helpers/sim.js';

const day = (text: string) => parseIsoDay(text)!;

describe('a resolved request, written', () => {
  it('puts its days where the operation takes them, as text only there; undefined parameters are left out', () => {
    const one = { start: day('2026-11-19'), end: day('2026-11-19') };
    expect(written({ op: dau, days: one, params: { page_size: 10, cursor: undefined } })).toEqual({
      query: { date: '2026-11-19', page_size: '10' },
    });
    const range = { start: day('2026-10-01'), end: day('2026-10-30') };
    expect(written({ op: costAnalytics, days: range, params: { granularity: 'G', page_size: 1000 } })).toEqual({
      body: { start_date: '2026-10-01', end_date: '2026-10-30', granularity: 'G', page_size: 1000 },
    });
  });

  it('has one key whatever the order of its parameters; other days, parameters or scope give another', () => {
    const days = { start: day('2026-10-01'), end: day('2026-10-30') };
    const a = { op: costAnalytics, days, params: { granularity: 'G', group_by_keys: ['U'] } };
    const key = requestKey(a, 's');
    expect(requestKey({ ...a, params: { group_by_keys: ['U'], granularity: 'G' } }, 's')).toBe(key);
    expect(requestKey({ ...a, days: { ...days, end: days.end - 1 } }, 's')).not.toBe(key);
    expect(requestKey({ ...a, params: { granularity: 'G' } }, 's')).not.toBe(key);
    expect(requestKey(a, 't')).not.toBe(key);
  });
});

describe('one request from the tool to the upstream', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ users: 300, now: NOW, rateLimit: false, token: 'request' });
  });
  afterAll(() => sim.close());

  it('a named range and the same days given as dates or as days are one walk and one cache entry', async () => {
    const client = clientFor(sim);
    try {
      // At NOW the latest published day is 2026-11-20: last_30_days is 2026-10-22..2026-11-20.
      const named = client.resolve(userActivity, { range: 'last_30_days' });
      expect(named.days).toEqual({ start: day('2026-10-22'), end: day('2026-11-20') });
      const wait = { signal: new AbortController().signal, answerWithinMs: 30_000 };
      const both = Promise.all([
        client.background.list(named, wait),
        client.background.list(
          client.resolve(userActivity, { start_date: '2026-10-22', end_date: '2026-11-20' }),
          wait,
        ),
      ]);
      expect(client.background.running).toBe(1);
      const [first, second] = await both;
      expect(first.complete && second.complete).toBe(true);
      const sent = requestsTo(sim, 'user-activity').length;
      expect(sent).toBe(first.complete ? first.answer.pages : -1);

      const again = await client.list(userActivity, { days: named.days });
      expect(again.freshness.from_cache).toBe(true);
      expect(requestsTo(sim, 'user-activity').length).toBe(sent);
    } finally {
      await client.close();
    }
  });
});
