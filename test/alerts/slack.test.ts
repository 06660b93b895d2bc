import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertCandidate } from '../../src/domain/alerts.js';
import { deliverDue } from '../../src/alerts/deliver.js';
import type { Destination } from '../../src/alerts/destinations.js';
import { createLogger } from '../../src/logger.js';
import type { HistoryStore } from '../../src/history/store/history-store.js';
import { queueAlerts } from '../../src/history/store/outbox/outbox-queue.js';
import { recentAlerts } from '../../src/history/store/outbox/outbox-read.js';
import { blockKitProblems, receiver, type Receiver } from '../helpers/alerts/receivers.js';
import { testStore, type TestStore } from '../helpers/alerts/stores.js';

const log = createLogger(
  'error',
  (t) => t,
  () => {},
);
const anomaly = (i: number): AlertCandidate => ({
  type: 'anomaly.detected',
  dedupKey: `anomaly.detected:u:p${i}@x.example:2026-11-20`,
  data: {
    anomalies: [
      {
        kind: 'identity_cost',
        user_email: `p${i}@x.example`,
        date: '2026-11-20',
        value: '812.40',
        baseline: '40.62',
        ratio: 20,
      },
    ],
  },
  scope: { identities: [`u:p${i}@x.example`], excessUsd: '771.78' },
});
const seats: AlertCandidate = {
  type: 'seats.inactive',
  dedupKey: 'seats.inactive:organization:2026-11-23',
  data: {
    week_of: '2026-11-23',
    count: 12,
    people: Array.from({ length: 12 }, (_, i) => ({
      user_email: `q${i}@x.example`,
      last_active_date: '2026-10-19',
      credits: 18250,
    })),
  },
  scope: {},
};
const messages = (r: Receiver) => r.received.map((m) => JSON.parse(m.body));
const texts = (cells: Array<{ text: string }>) => cells.map((c) => c.text);

describe('Slack: Block Kit to an incoming webhook', () => {
  let where: TestStore;
  let store: HistoryStore;
  let slack: Receiver;
  let destination: Destination;
  beforeAll(async () => {
    where = testStore('sqlite');
    store = await where.open();
    slack = await receiver(0, '/services/T000/B000/XXXX');
    destination = { name: 'slack', kind: 'slack', events: ['*'], url: new URL(slack.url) };
  });
  afterAll(async () => {
    await slack?.close();
    await store?.close();
    await where?.remove();
  });

  it('one message per alert for up to 3 of a sync: a header, the facts as fields, the table', async () => {
    await queueAlerts(store, [anomaly(1), seats], [destination], { organization: 'northwind' });
    expect(await deliverDue(store, [destination], { log })).toEqual({ delivered: 2, retried: 0, failed: 0 });
    const sent = messages(slack);
    expect(sent).toHaveLength(2);
    for (const m of sent) expect(blockKitProblems(m)).toEqual([]);
    const byTitle = new Map(sent.map((m) => [m.blocks[0].text.text, m]));
    const unusual = byTitle.get('Unusual usage')!;
    const table = unusual.blocks.find((b: { type: string }) => b.type === 'table');
    expect(texts(table.rows[0])).toEqual(['kind', 'user email', 'date', 'value', 'baseline', 'ratio']);
    // Exact decimals, as the alert carries them.
    expect(texts(table.rows[1])).toEqual(['identity_cost', 'p1@x.example', '2026-11-20', '812.40', '40.62', '20']);
    const inactive = byTitle.get('Seats gone inactive')!;
    const fields = inactive.blocks
      .find((b: { type: string }) => b.type === 'section')
      .fields.map((f: { text: string }) => f.text);
    expect(fields).toEqual(['*organization*\nnorthwind', '*week of*\n2026-11-23', '*count*\n12']);
    const rows = inactive.blocks.find((b: { type: string }) => b.type === 'table').rows;
    expect(rows).toHaveLength(11);
    expect(JSON.stringify(inactive.blocks.at(-1))).toContain('and 2 more');
  });

  it('more than 3 alerts of one sync come as one message with their count, its table at most 10 rows', async () => {
    slack.received.length = 0;
    const many = Array.from({ length: 12 }, (_, i) => anomaly(100 + i));
    await queueAlerts(store, many, [destination]);
    expect(await deliverDue(store, [destination], { log })).toEqual({ delivered: 12, retried: 0, failed: 0 });
    const sent = messages(slack);
    expect(sent).toHaveLength(1);
    expect(blockKitProblems(sent[0])).toEqual([]);
    expect(sent[0].blocks[0].text.text).toBe('12 alerts');
    expect(sent[0].blocks[1].fields.map((f: { text: string }) => f.text)).toEqual(['*Unusual usage*\n12']);
    const table = sent[0].blocks.find((b: { type: string }) => b.type === 'table');
    expect(table.rows).toHaveLength(11);
    // Who, from what the alert carries (pseudonyms under --pii pseudonymous), not from its dedup key.
    expect(texts(table.rows[1])).toEqual(['anomaly.detected', 'p100@x.example', '2026-11-20']);
    expect(JSON.stringify(sent[0])).toContain('and 2 more');
  });

  it('under --pii pseudonymous, a batch names people as the alerts carry them: their keys stay inside', async () => {
    slack.received.length = 0;
    // As after-sync queues them under --pii pseudonymous: data pseudonymous, the dedup key as decided.
    const carried = Array.from({ length: 5 }, (_, i) => {
      const a = anomaly(400 + i);
      return {
        ...a,
        data: JSON.parse(JSON.stringify(a.data).replaceAll(`p${400 + i}@x.example`, `user-${i}@pseudonym.invalid`)),
      };
    });
    await queueAlerts(store, carried, [destination]);
    await deliverDue(store, [destination], { log });
    const text = slack.received.map((r) => r.body).join('\n');
    expect(text).toContain('user-0@pseudonym.invalid');
    expect(text).not.toMatch(/p40\d@x\.example/);
  });

  it('a batch that fails is retried whole, then delivered as one message', async () => {
    slack.received.length = 0;
    await queueAlerts(
      store,
      Array.from({ length: 4 }, (_, i) => anomaly(200 + i)),
      [destination],
    );
    slack.script.push([500, 'rollup_error']);
    expect(await deliverDue(store, [destination], { log })).toEqual({ delivered: 0, retried: 4, failed: 0 });
    expect(await deliverDue(store, [destination], { log, all: true })).toEqual({ delivered: 4, retried: 0, failed: 0 });
    expect(messages(slack).map((m) => m.blocks[0].text.text)).toEqual(['4 alerts', '4 alerts']);
    expect((await recentAlerts(store, 4)).every((r) => r.state === 'delivered' && r.attempts === 2)).toBe(true);
  });

  it('a refused message (Slack answers 404 no_team when the hook is gone) is final', async () => {
    slack.received.length = 0;
    await queueAlerts(store, [anomaly(300)], [destination]);
    slack.script.push([404, 'no_team']);
    expect(await deliverDue(store, [destination], { log })).toEqual({ delivered: 0, retried: 0, failed: 1 });
    expect((await recentAlerts(store, 1))[0]!.lastError).toBe('404: no_team');
  });
});
