/**
 * What the sync says of itself, for the store's gauges: the blocks done of the total of the run under way (or
 * the last), and when a run last stored everything it planned. One per process: the first tenant's sync, or
 * `sync`'s own.
 */
export const syncStatus: { done: number; total: number; lastSuccessAt: number | undefined } = {
  done: 0,
  total: 0,
  lastSuccessAt: undefined,
};

export function syncProgressed(done: number, total: number, succeeded: boolean): void {
  syncStatus.done = done;
  syncStatus.total = total;
  if (succeeded) syncStatus.lastSuccessAt = Date.now();
}
