import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../src/simulator/index.js';
import type { ListingStatus } from '../../../src/upstream/listing/background-listings.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';
import { FilePageEstimates } from '../../../src/upstream/listing/page-estimates.js';
import { clientFor } from '../../helpers/client.js';
import { NOW } from '../../helpers/sim.js';

const dirs: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'page-estimates-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('page estimates in a file', () => {
  it('are read back by the next process, from a 0600 file; a damaged file starts empty', () => {
    const path = join(dir(), 'estimates.json');
    new FilePageEstimates(path).set('user-activity|{}|30', 94);
    expect(new FilePageEstimates(path).get('user-activity|{}|30')).toBe(94);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, '{"user-activity|{}|30": 9');
    expect(new FilePageEstimates(path).get('user-activity|{}|30')).toBeUndefined();
  });

  it('let the first walk after a restart say how many pages to expect', async () => {
    const sim = await startSimulator({ users: 400, now: NOW, rateLimit: false, token: 'estimates' });
    const cacheDir = dir();
    const args = { start_date: '2026-10-01', end_date: '2026-10-30' };
    const walk = async () => {
      const client = clientFor(sim, { cacheDir });
      const statuses: ListingStatus[] = [];
      const waited = await client.background.list(client.resolve(userActivity, args), {
        signal: new AbortController().signal,
        answerWithinMs: 30_000,
        onStatus: (s) => statuses.push(s),
      });
      await client.close();
      return { complete: waited.complete, statuses };
    };
    try {
      const first = await walk();
      expect(first.complete).toBe(true);
      expect(first.statuses.every((s) => s.expected === null)).toBe(true);
      const pages = first.statuses.at(-1)!.pages;
      expect(pages).toBeGreaterThan(1);
      // A new client (as after a restart) on the same cache directory.
      const second = await walk();
      expect(second.statuses[0]!.expected).toBe(pages);
    } finally {
      await sim.close();
    }
  });
});
