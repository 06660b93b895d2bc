import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anomalyCandidates } from '../../src/alerts/decide-anomalies.js';
import { publishAnomalies } from '../../src/insights/anomaly-feed.js';
import type { Anomaly } from '../../src/insights/anomaly-find.js';
import { SPIKE } from '../../src/simulator/data/catalog.js';
import { formatDay } from '../../src/util/utc-date.js';
import { storedHarness, type StoredHarness } from '../helpers/history.js';

// 40 days: the last 12 complete days have their 28-day baselines, the planted spike among them.
let h: StoredHarness;
let fresh: Anomaly[];

beforeAll(async () => {
  h = await storedHarness({ historyDays: 40, historyMonths: 0 }, { sim: { users: 120 } });
  const source = h.history.source;
  fresh = await publishAnomalies(h.upstream, h.deps.config, source.store, new AbortController().signal, source.digest);
}, 120_000);
afterAll(() => h?.close());

const whoOf = (a: any) => a.user_email ?? a.service_account_name ?? a.scope;

describe('anomaly.detected, from the anomalies a sync publishes', () => {
  it('alerts the planted service account burning 20× its credits, with the anomaly as find_anomalies gives it', async () => {
    const day = formatDay(h.sim.state.org.anchorDay - SPIKE.daysBeforeAnchor);
    const candidates = anomalyCandidates(fresh);
    const spike = candidates.find((c) => c.dedupKey === `anomaly.detected:s:${SPIKE.account}:${day}`);
    expect(spike, candidates.map((c) => c.dedupKey).join('\n')).toBeDefined();
    const tool = await h.call('find_anomalies', { limit: 1000 });
    expect(tool.isError, tool.text).toBe(false);
    const same = tool.structured.anomalies.filter(
      (a: any) => a.service_account_name === SPIKE.account && a.date === day,
    );
    expect(spike!.data).toEqual({ anomalies: same });
    const credits = same.find((a: any) => a.kind === 'identity_credits');
    expect(credits.ratio).toBeGreaterThanOrEqual(SPIKE.factor / 2);
    // The excess over the baseline, exactly: a whole number of credits less a baseline that may end in .5.
    expect(spike!.scope).toMatchObject({
      identities: [`s:${SPIKE.account}`],
      excessCredits: String(credits.value - credits.baseline),
    });
  });

  it('one alert per subject and day, in find_anomalies’ rank order, covering every published anomaly once', async () => {
    expect(fresh.length).toBeGreaterThan(1);
    const candidates = anomalyCandidates(fresh);
    expect(candidates.flatMap((c) => c.data.anomalies as Anomaly[]).length).toBe(fresh.length);
    const keys = candidates.map((c) => c.dedupKey);
    expect(new Set(keys).size).toBe(keys.length);
    // The first anomaly of each alert appears in the published ranking in the alerts' order.
    const firsts = candidates.map((c) => fresh.indexOf((c.data.anomalies as Anomaly[])[0]!));
    expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    for (const c of candidates) {
      const [first] = c.data.anomalies as Anomaly[];
      expect(c.type).toBe('anomaly.detected');
      expect(c.dedupKey).toMatch(
        /^anomaly\.detected:(u:[^:]+@[^:]+|s:[^:]+|organization|resource:.+):\d{4}-\d\d-\d\d$/,
      );
      expect(c.dedupKey.endsWith(`:${first!.date}`)).toBe(true);
      const person = first!.user_email ?? first!.service_account_name;
      if (person) expect(c.scope.identities).toEqual([c.dedupKey.split(':').slice(1, 3).join(':')]);
      else expect(c.scope.identities).toBeUndefined();
      for (const a of c.data.anomalies as Anomaly[]) expect(whoOf(a)).toBe(whoOf(first));
    }
    // Exact decimals as strings wherever money or credits are summed.
    for (const c of candidates)
      for (const v of [c.scope.excessUsd, c.scope.excessCredits])
        if (v !== undefined) expect(v).toMatch(/^-?\d+(\.\d+)?$/);
  });
});
