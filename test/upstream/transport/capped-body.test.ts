import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { toolErrorMessage } from '../../../src/tools/failure-text.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { dauCount } from '../../../src/upstream/endpoints/dau-count.js';
import { ResponseTooLargeError } from '../../../src/upstream/errors.js';
import { clientFor, requestsTo } from '../../helpers/client.js';
import { NOW } from '../../helpers/sim.js';

let sim: Simulator | undefined;
let client: AnalyticsClient | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.close();
  client = sim = undefined;
});

const CAP = 256 * 1024;

describe('each upstream response is read against the size cap', () => {
  it.each([
    [
      'announced in its Content-Length',
      true,
      /dau-count \(GET http:\/\/[^)]+\/dau-count\) announced 1 MB, over the 0.3 MB/,
    ],
    [
      'counted as it streams in',
      false,
      /dau-count \(GET http:\/\/[^)]+\/dau-count\) sent more than that, over the 0.3 MB/,
    ],
  ])(
    'a page over it, %s, is refused once, kept nowhere, and the next request goes out',
    async (_, contentLength, said) => {
      sim = await startSimulator({ users: 30, now: NOW, rateLimit: false, token: 'rw' });
      client = clientFor(sim, { maxResponseBytes: CAP });
      sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'huge', bytes: 1024 * 1024, contentLength });

      const error = await client.list(dauCount, { range: 'last_7_days' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as ResponseTooLargeError).message).toMatch(said);
      expect(toolErrorMessage(error)).toMatch(
        /nothing of it was kept.*\(--max-response-mb, ANALYTICS_MAX_RESPONSE_MB\)/,
      );
      expect(requestsTo(sim, 'dau-count')).toHaveLength(1);
      expect(client.cache.size.entries).toBe(0);

      const answer = await client.list(dauCount, { range: 'last_7_days' });
      expect(answer.data.length).toBe(7);
      expect(requestsTo(sim, 'dau-count')).toHaveLength(2);
    },
  );

  it('reads a page under it whole', async () => {
    sim = await startSimulator({ users: 30, now: NOW, rateLimit: false, token: 'rw' });
    client = clientFor(sim, { maxResponseBytes: CAP });
    const answer = await client.list(dauCount, { range: 'last_90_days' });
    expect(answer.data.length).toBe(90);
  });
});
