import { describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../src/upstream/errors.js';
import { Walk } from '../../../src/upstream/listing/listing-walk.js';
import type { ListingAnswer } from '../../../src/upstream/client.js';

const answer = {
  value: [],
  freshness: { fetched_at: '', from_cache: false, next_refresh_at: null },
} as unknown as ListingAnswer<unknown>;

/** A walk whose pages arrive when the test says, and which ends when its signal aborts or the test finishes it. */
function walkOf(deadlineMs: number) {
  let finish!: () => void;
  let seen!: AbortSignal;
  const walk = new Walk(
    'user-activity',
    10,
    (signal, w) =>
      new Promise<ListingAnswer<unknown>>((resolve, reject) => {
        seen = signal;
        w.onProgress({ pages: 1, records: 50 });
        finish = () => resolve(answer);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    new AbortController().signal,
    deadlineMs,
  );
  return { walk, finish: () => finish(), signal: () => seen };
}

describe('a listing walk', () => {
  it('answers in full when it ends within the budget', async () => {
    const { walk, finish } = walkOf(50);
    const waited = walk.wait({ signal: new AbortController().signal, answerWithinMs: 1_000 });
    finish();
    expect(await waited).toMatchObject({ complete: true, answer });
  });

  it('goes on without its caller past the budget, and stops at its own deadline with a TimeoutError', async () => {
    const { walk, signal } = walkOf(80);
    const waited = await walk.wait({ signal: new AbortController().signal, answerWithinMs: 20 });
    expect(waited.complete).toBe(false);
    expect(signal().aborted).toBe(false);
    await expect(walk.result).rejects.toBeInstanceOf(TimeoutError);
    expect(signal().reason).toBeInstanceOf(TimeoutError);
  });
});
