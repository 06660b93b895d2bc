import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertCandidate } from '../../src/domain/alerts.js';
import { deliverDue } from '../../src/alerts/deliver.js';
import type { Destination } from '../../src/alerts/destinations.js';
import { createLogger } from '../../src/logger.js';
import type { HistoryStore } from '../../src/history/store/history-store.js';
import { queueAlerts } from '../../src/history/store/outbox/outbox-queue.js';
import { recentAlerts } from '../../src/history/store/outbox/outbox-read.js';
import { smtpReceiver, type Mail } from '../helpers/alerts/receivers.js';
import { testStore, type TestStore } from '../helpers/alerts/stores.js';

const log = createLogger(
  'error',
  (t) => t,
  () => {},
);
const budget: AlertCandidate = {
  type: 'budget.threshold',
  dedupKey: 'budget.threshold:u:ana@x.example:100:2026-11',
  data: {
    user_email: 'ana@x.example',
    resource: 'usd',
    limit: '250',
    used: '251.10',
    projected: '402.00',
    threshold: '100',
  },
  scope: { identities: ['u:ana@x.example'] },
};
const stale: AlertCandidate = {
  type: 'data.stale',
  dedupKey: 'data.stale:organization:2026-11-24',
  data: { stored_through: '2026-11-20', latest_published: '2026-11-23', days_behind: 3 },
  scope: {},
};

describe('email over SMTP (smtp-server)', () => {
  let where: TestStore;
  let store: HistoryStore;
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let destination: Destination;
  beforeAll(async () => {
    where = testStore('sqlite');
    store = await where.open();
    smtp = await smtpReceiver();
    destination = {
      ...{ name: 'mail', kind: 'email', events: ['*'], smtpUrl: smtp.url },
      ...{ from: 'org-analytics@x.example', to: ['admins@x.example', 'cfo@x.example'] },
    };
  });
  afterAll(async () => {
    await smtp?.close();
    await store?.close();
    await where?.remove();
  });

  it('sends the alerts of one sync as one short plain-text and HTML message', async () => {
    await queueAlerts(store, [budget, stale], [destination]);
    expect(await deliverDue(store, [destination], { log })).toEqual({ delivered: 2, retried: 0, failed: 0 });
    expect(smtp.mails).toHaveLength(1);
    const mail: Mail = smtp.mails[0]!;
    expect(mail.from).toBe('org-analytics@x.example');
    expect(mail.to).toEqual(['admins@x.example', 'cfo@x.example']);
    expect(mail.raw).toMatch(/^Subject: org-analytics-mcp: 2 alerts$/m);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/);
    expect(mail.raw).toMatch(/Content-Type: text\/html/);
    // Exact decimals as the alert carries them, in both parts.
    expect(mail.raw).toContain('used: 251.10');
    expect(mail.raw).toContain('<li><b>used</b>: 251.10</li>');
    expect(mail.raw).toContain('days behind: 3');
  });

  it('an SMTP server that is down: still queued, sent once it is up', async () => {
    const down: Destination = { ...destination, name: 'down', smtpUrl: 'smtp://127.0.0.1:1' } as Destination;
    await queueAlerts(store, [{ ...stale, dedupKey: 'data.stale:organization:2026-11-25' }], [down]);
    expect(await deliverDue(store, [down], { log })).toEqual({ delivered: 0, retried: 1, failed: 0 });
    expect((await recentAlerts(store, 1))[0]!.lastError).toMatch(/^no answer: .*ECONNREFUSED/);
    const up = { ...down, smtpUrl: smtp.url } as Destination;
    expect(await deliverDue(store, [up], { log, all: true })).toEqual({ delivered: 1, retried: 0, failed: 0 });
  });
});
