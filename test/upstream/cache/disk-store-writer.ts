// A second process for test/upstream/cache/disk-store.test.ts: writes the same keys as the test, at the same time.
import { DiskStore } from '../../../src/upstream/cache/disk-store.js';
import { encodeAnswer } from '../../../src/upstream/cache/stored-answer.js';

const [dir, writer, rounds] = process.argv.slice(2);
const store = new DiskStore(dir!, 50 * 1024 * 1024);
const now = Date.now();
for (let round = 0; round < Number(rounds); round++) {
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => {
      const answer = {
        key: `key-${i}`,
        value: { i, writer, round, pad: 'x'.repeat(2000 + round) },
        fetchedAt: now,
        nextRefreshAt: undefined,
        expiresAt: now + 3_600_000,
      };
      return store.set(answer, encodeAnswer(answer), now);
    }),
  );
}
await store.close();
