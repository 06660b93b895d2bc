import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AlertCandidate } from '../../src/domain/alerts.js';
import { deliverDue } from '../../src/alerts/deliver.js';
import type { Destination } from '../../src/alerts/destinations.js';
import { DEFAULT_BACKOFF } from '../../src/alerts/outcome.js';
import { createLogger } from '../../src/logger.js';
import type { HistoryStore } from '../../src/history/store/history-store.js';
import { claimDue } from '../../src/history/store/outbox/outbox-claim.js';
import { queueAlerts } from '../../src/history/store/outbox/outbox-queue.js';
import { recentAlerts } from '../../src/history/store/outbox/outbox-read.js';
import { receiver, verified, WEBHOOK_SECRET, type Receiver } from '../helpers/alerts/receivers.js';
import { testStore, type TestStore } from '../helpers/alerts/stores.js';

const lines: string[] = [];
const log = createLogger(
  'debug',
  (t) => t,
  (l) => void lines.push(l),
);
const budget = (who: string, threshold = '80'): AlertCandidate => ({
  type: 'budget.threshold',
  dedupKey: `budget.threshold:u:${who}:${threshold}:2026-11`,
  data: { user_email: who, resource: 'usd', limit: '250', used: '212.40', projected: '329.22', threshold },
  scope: { identities: [`u:${who}`] },
});
const webhook = (r: Receiver, name = 'hook'): Destination => ({
  name,
  events: ['*'],
  kind: 'webhook',
  url: new URL(r.url),
  secret: WEBHOOK_SECRET,
});
const fast = { log, backoff: { baseMs: 20 } };
const until = async (ok: () => Promise<boolean> | boolean, ms = 10_000) => {
  for (const end = Date.now() + ms; !(await ok()); await new Promise((r) => setTimeout(r, 25)))
    if (Date.now() > end) throw new Error('timed out');
};

describe('delivering the outbox to a webhook that verifies signatures (SQLite)', () => {
  let where: TestStore;
  let store: HistoryStore;
  let hook: Receiver;
  beforeAll(async () => {
    where = testStore('sqlite');
    store = await where.open();
    hook = await receiver();
  });
  afterEach(() => {
    hook.received.length = 0;
    hook.script.length = 0;
    lines.length = 0;
  });
  afterAll(async () => {
    await hook?.close();
    await store?.close();
    await where?.remove();
  });

  it('a receiver answering 500, then 200: delivered once, the same webhook-id on both, the retry within 30 s', async () => {
    const [queued] = await queueAlerts(store, [budget('ana@x.example')], [webhook(hook)]);
    hook.script.push([500, 'busy']);
    const first = await deliverDue(store, [webhook(hook)], { log });
    expect(first).toEqual({ delivered: 0, retried: 1, failed: 0 });
    const [row] = await recentAlerts(store, 1);
    expect(row).toMatchObject({ id: queued!.id, state: 'queued', attempts: 1, lastError: '500: busy' });
    expect(row!.nextAttemptAt - Date.now()).toBeLessThanOrEqual(30_000);
    expect(row!.nextAttemptAt - Date.now()).toBeGreaterThan(DEFAULT_BACKOFF.baseMs / 2);
    // Not due yet: nothing is sent.
    expect(await deliverDue(store, [webhook(hook)], { log })).toEqual({ delivered: 0, retried: 0, failed: 0 });
    expect(await deliverDue(store, [webhook(hook)], { log, all: true })).toEqual({
      delivered: 1,
      retried: 0,
      failed: 0,
    });
    expect(await deliverDue(store, [webhook(hook)], { log, all: true })).toEqual({
      delivered: 0,
      retried: 0,
      failed: 0,
    });
    const seen = hook.received.map((r) => verified(r));
    expect(seen.map((s) => s.id)).toEqual([queued!.id, queued!.id]);
    expect(seen[1]!.body).toEqual({
      type: 'budget.threshold',
      timestamp: expect.any(String),
      data: budget('ana@x.example').data,
    });
    expect((await recentAlerts(store, 1))[0]).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('retries with backoff on its own until delivered: 408, 429 and 503 are tried again', async () => {
    await queueAlerts(store, [budget('bo@x.example')], [webhook(hook)]);
    hook.script.push(408, 429, 503);
    let report = { delivered: 0, retried: 0, failed: 0 };
    await until(async () => {
      const r = await deliverDue(store, [webhook(hook)], fast);
      report = { delivered: report.delivered + r.delivered, retried: report.retried + r.retried, failed: 0 };
      return report.delivered === 1;
    });
    expect(report.retried).toBe(3);
    expect(new Set(hook.received.map((r) => verified(r).id)).size).toBe(1);
    expect(hook.received).toHaveLength(4);
  });

  it('a process about to exit lingers for retries due within lingerMs, and no longer', async () => {
    await queueAlerts(store, [budget('la@x.example')], [webhook(hook)]);
    hook.script.push(503);
    const report = await deliverDue(store, [webhook(hook)], { log, backoff: { baseMs: 200 }, lingerMs: 30_000 });
    expect(report).toEqual({ delivered: 1, retried: 1, failed: 0 });
    expect(hook.received).toHaveLength(2);
    await queueAlerts(store, [budget('lb@x.example')], [webhook(hook)]);
    hook.script.push(503);
    const started = Date.now();
    const alone = await deliverDue(store, [webhook(hook)], { log, backoff: { baseMs: 60_000 }, lingerMs: 30_000 });
    expect(alone).toEqual({ delivered: 0, retried: 1, failed: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await deliverDue(store, [webhook(hook)], { log, all: true })).toMatchObject({ delivered: 1 });
  });

  it('a 4xx other than 408 and 429 is final, logged with the first 200 characters of the answer', async () => {
    await queueAlerts(store, [budget('cy@x.example')], [webhook(hook)]);
    hook.script.push([410, `gone: ${'x'.repeat(300)}`]);
    expect(await deliverDue(store, [webhook(hook)], { log, all: true })).toEqual({
      delivered: 0,
      retried: 0,
      failed: 1,
    });
    expect(await deliverDue(store, [webhook(hook)], { log, all: true })).toEqual({
      delivered: 0,
      retried: 0,
      failed: 0,
    });
    const [row] = await recentAlerts(store, 1);
    expect(row).toMatchObject({ state: 'failed', attempts: 1 });
    expect(row!.lastError).toBe(`410: gone: ${'x'.repeat(194)}`);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.level === 'warn');
    expect(logged.error).toBe(row!.lastError);
    expect(lines.join('\n')).not.toContain(WEBHOOK_SECRET);
    expect(hook.received).toHaveLength(1);
  });

  it('gives up 24 h after the decision', async () => {
    const longAgo = Date.now() - 24 * 3600_000 + 5_000;
    await queueAlerts(store, [budget('di@x.example')], [webhook(hook)], { now: longAgo });
    hook.script.push(503);
    expect(await deliverDue(store, [webhook(hook)], { log })).toEqual({ delivered: 0, retried: 0, failed: 1 });
    expect((await recentAlerts(store)).find((r) => r.dedupKey.includes('di@'))!.lastError).toMatch(
      /^gave up after 24 h: 503/,
    );
  });

  it('a receiver that does not answer within 10 s is tried again later', async () => {
    await queueAlerts(store, [budget('ed@x.example')], [webhook(hook)]);
    hook.hang = true;
    const started = Date.now();
    try {
      expect(await deliverDue(store, [webhook(hook)], { log })).toEqual({ delivered: 0, retried: 1, failed: 0 });
    } finally {
      hook.hang = false;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    expect((await recentAlerts(store, 1))[0]!.lastError).toMatch(/^no answer: the 10 s time limit passed/);
    expect(await deliverDue(store, [webhook(hook)], { log, all: true })).toMatchObject({ delivered: 1 });
  }, 30_000);

  it('a redirect is not followed', async () => {
    const target = await receiver();
    try {
      await queueAlerts(store, [budget('fa@x.example')], [webhook(hook)]);
      hook.script.push([307, 'moved']);
      // undici's request does not follow; a 3xx is tried again like a 5xx, never sent on.
      expect(await deliverDue(store, [webhook(hook)], { log, all: true })).toMatchObject({ retried: 1 });
      expect(target.received).toEqual([]);
      expect(await deliverDue(store, [webhook(hook)], { log, all: true })).toMatchObject({ delivered: 1 });
    } finally {
      await target.close();
    }
  });

  it('leaves rows another process claims alone, and takes them once its lease is over', async () => {
    await queueAlerts(store, [budget('gu@x.example')], [webhook(hook)]);
    const now = Date.now();
    const [held] = await claimDue(store, { holder: 'elsewhere/1/x', now, leaseMs: 1_000, limit: 10 });
    expect(await deliverDue(store, [webhook(hook)], { log, all: true })).toMatchObject({ delivered: 0 });
    await until(() => Date.now() > now + 1_000);
    expect(await deliverDue(store, [webhook(hook)], { log })).toMatchObject({ delivered: 1 });
    expect(verified(hook.received[0]!).id).toBe(held!.id);
  });
});
