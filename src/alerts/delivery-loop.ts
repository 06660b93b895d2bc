import type { HistoryStore } from '../history/store/history-store.js';
import type { Destination } from './destinations.js';
import { deliverDue, type DeliverOptions } from './deliver.js';

/** How often a server looks for alerts due: with the first retry at most 12 s after a failure, within 30 s. */
export const DELIVERY_EVERY_MS = 10_000;

export interface DeliveryLoop {
  /** Delivers now (after a sync queued alerts), once what runs has finished. */
  kick(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A server's delivery: at start (what a killed process left), then every 10 s, and whenever kicked. One pass at a
 * time; a failing pass is logged and the next one tries again.
 */
export function startDeliveryLoop(
  store: HistoryStore,
  destinations: readonly Destination[],
  opts: Omit<DeliverOptions, 'signal' | 'all'> & { everyMs?: number },
): DeliveryLoop {
  const stopping = new AbortController();
  let running: Promise<void> = Promise.resolve();
  let again = false;
  const pass = async () => {
    do {
      again = false;
      await deliverDue(store, destinations, { ...opts, signal: stopping.signal }).catch((error: Error) =>
        opts.log.warn('could not deliver alerts; trying again shortly', { error: error.message }),
      );
    } while (again && !stopping.signal.aborted);
  };
  let busy = false;
  const kick = () => {
    if (stopping.signal.aborted) return running;
    if (busy) {
      again = true;
      return running;
    }
    busy = true;
    running = pass().finally(() => (busy = false));
    return running;
  };
  const timer = setInterval(() => void kick(), opts.everyMs ?? DELIVERY_EVERY_MS);
  timer.unref();
  void kick();
  return {
    kick,
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
