// A process that decides alerts and is killed (test/alerts/killed.test.ts): run with `node --import tsx`.
// argv: STORE_PATH RECEIVER_URL then 'hang' (queue, then wait to be killed) or 'deliver' (queue, then deliver).
import { deliverDue } from '../../../src/alerts/deliver.js';
import type { Destination } from '../../../src/alerts/destinations.js';
import { openHistory } from '../../../src/history/store/open-history.js';
import { queueAlerts } from '../../../src/history/store/outbox/outbox-queue.js';
import { createLogger } from '../../../src/logger.js';
import { WEBHOOK_SECRET } from './receivers.js';

const [path, url, mode] = process.argv.slice(2);
const store = (await openHistory({ kind: 'sqlite', path: path! }, 'child'))!;
const hook: Destination = { name: 'hook', kind: 'webhook', events: ['*'], url: new URL(url!), secret: WEBHOOK_SECRET };
const queued = await queueAlerts(
  store,
  [1, 2, 3].map((i) => ({
    type: 'sync.failed' as const,
    dedupKey: `sync.failed:organization:2026-11-2${i}`,
    data: { failed_requests: i },
    scope: {},
  })),
  [hook],
);
process.stdout.write(`queued ${queued.map((q) => q.id).join(' ')}\n`);
if (mode === 'deliver') {
  const report = await deliverDue(store, [hook], { log: createLogger('error', (t) => t) });
  process.stdout.write(`delivered ${report.delivered} retried ${report.retried}\n`);
  await store.close();
} else await new Promise(() => {});
