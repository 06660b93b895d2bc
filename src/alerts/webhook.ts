import { Webhook } from 'standardwebhooks';
import type { OutboxAlert } from '../history/store/outbox/outbox-rows.js';
import type { Destination } from './destinations.js';
import { postJson, type Answer } from './http-post.js';

type WebhookDestination = Extract<Destination, { kind: 'webhook' }>;

/**
 * One alert, its body as queued (`{type, timestamp, data}`), signed per Standard Webhooks: `webhook-id` is the
 * alert's own id, the same on every retry; the signature's timestamp is this attempt's.
 */
export async function sendWebhook(
  destination: WebhookDestination,
  alert: OutboxAlert,
  now = new Date(),
): Promise<Answer> {
  const signature = new Webhook(destination.secret).sign(alert.id, now, alert.payload);
  return postJson(destination.url, alert.payload, {
    'webhook-id': alert.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
  });
}
