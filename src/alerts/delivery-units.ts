import type { OutboxAlert } from '../history/store/outbox/outbox-rows.js';
import type { Destination } from './destinations.js';
import { sendEmail } from './email.js';
import type { Answer } from './http-post.js';
import { sendSlack, slackMessages } from './slack.js';
import { sendWebhook } from './webhook.js';

/** One message to one destination, and the alerts its answer settles. */
export type Unit =
  | { destination: Extract<Destination, { kind: 'webhook' }>; alerts: [OutboxAlert] }
  | { destination: Extract<Destination, { kind: 'slack' }>; alerts: OutboxAlert[]; body: string }
  | { destination: Extract<Destination, { kind: 'email' }>; alerts: OutboxAlert[] };

/**
 * Claimed rows as messages: a webhook per alert; Slack per alert, or one for more than 3 of one sync; one email
 * per sync. Rows of a destination no longer configured stay unclaimed by the caller (it claims only its own).
 */
export function unitsOf(rows: readonly OutboxAlert[], destinations: ReadonlyMap<string, Destination>): Unit[] {
  const groups = new Map<string, OutboxAlert[]>();
  for (const r of rows) {
    const key = `${r.destination}\u0000${r.batch}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const units: Unit[] = [];
  for (const alerts of groups.values()) {
    const destination = destinations.get(alerts[0]!.destination);
    if (!destination) continue;
    if (destination.kind === 'webhook') for (const a of alerts) units.push({ destination, alerts: [a] });
    else if (destination.kind === 'email') units.push({ destination, alerts });
    else for (const m of slackMessages(alerts)) units.push({ destination, ...m });
  }
  return units;
}

export function sendUnit(unit: Unit): Promise<Answer> {
  if (unit.destination.kind === 'webhook') return sendWebhook(unit.destination, unit.alerts[0]!);
  if (unit.destination.kind === 'slack') return sendSlack(unit.destination, (unit as { body: string }).body);
  return sendEmail(unit.destination, unit.alerts);
}
