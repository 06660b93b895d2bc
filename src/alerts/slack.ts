import type { OutboxAlert } from '../history/store/outbox/outbox-rows.js';
import { batchSummaryOf, summaryOf, type AlertBody, type AlertSummary } from './alert-summary.js';
import type { Destination } from './destinations.js';
import { postJson, type Answer } from './http-post.js';

type SlackDestination = Extract<Destination, { kind: 'slack' }>;

/** More alerts of one sync than this come as one message with their count. */
export const SLACK_BATCH_OVER = 3;

const plain = (text: string, max: number) => ({ type: 'plain_text', text: text.slice(0, max) });
const raw = (text: string) => ({ type: 'raw_text', text: text.slice(0, 200) || ' ' });

/** Block Kit: a header, the facts as fields (at most 10), a table of at most 10 rows, and how many more. */
export function slackMessage(summary: AlertSummary, organization?: string): Record<string, unknown> {
  const blocks: Array<Record<string, unknown>> = [{ type: 'header', text: plain(summary.title, 150) }];
  if (summary.facts.length)
    blocks.push({
      type: 'section',
      fields: summary.facts.slice(0, 10).map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${v}`.slice(0, 2000) })),
    });
  if (summary.table?.rows.length)
    blocks.push({ type: 'table', rows: [summary.table.columns, ...summary.table.rows].map((r) => r.map(raw)) });
  const notes = [
    ...(summary.more ? [`and ${summary.more} more`] : []),
    `org-analytics-mcp${organization ? ` · ${organization}` : ''}`,
  ];
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: notes.join(' · ') }] });
  const text = `${summary.title}: ${summary.facts.map(([k, v]) => `${k} ${v}`).join(', ')}`.slice(0, 3000);
  return { text, blocks };
}

const bodyOf = (a: OutboxAlert) => JSON.parse(a.payload) as AlertBody;
const organizationOf = (b: AlertBody) => (typeof b.data.organization === 'string' ? b.data.organization : undefined);

/**
 * The messages for alerts of one sync: one each, or one for all of them when there are more than 3. Each
 * message with the alerts it carries, so that its answer settles them.
 */
export function slackMessages(alerts: readonly OutboxAlert[]): Array<{ alerts: OutboxAlert[]; body: string }> {
  if (alerts.length > SLACK_BATCH_OVER) {
    const bodies = alerts.map((a) => ({ body: bodyOf(a), dedupKey: a.dedupKey }));
    const message = slackMessage(batchSummaryOf(bodies), organizationOf(bodies[0]!.body));
    return [{ alerts: [...alerts], body: JSON.stringify(message) }];
  }
  return alerts.map((a) => {
    const body = bodyOf(a);
    return { alerts: [a], body: JSON.stringify(slackMessage(summaryOf(body), organizationOf(body))) };
  });
}

export const sendSlack = (destination: SlackDestination, body: string): Promise<Answer> =>
  postJson(destination.url, body, {});
