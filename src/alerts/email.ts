import type { OutboxAlert } from '../history/store/outbox/outbox-rows.js';
import { summaryOf, type AlertBody, type AlertSummary } from './alert-summary.js';
import type { Destination } from './destinations.js';
import { DELIVERY_TIMEOUT_MS, type Answer } from './http-post.js';

type EmailDestination = Extract<Destination, { kind: 'email' }>;

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function textOf(s: AlertSummary): string {
  const lines = [s.title, '', ...s.facts.map(([k, v]) => `${k}: ${v}`)];
  if (s.table) lines.push('', s.table.columns.join(' | '), ...s.table.rows.map((r) => r.join(' | ')));
  if (s.more) lines.push(`and ${s.more} more`);
  return lines.join('\n');
}

function htmlOf(s: AlertSummary): string {
  const facts = s.facts.map(([k, v]) => `<li><b>${escape(k)}</b>: ${escape(v)}</li>`).join('');
  const row = (cells: string[], tag: string) =>
    `<tr>${cells.map((c) => `<${tag}>${escape(c)}</${tag}>`).join('')}</tr>`;
  const table = s.table
    ? `<table border="1" cellpadding="4">${row(s.table.columns, 'th')}${s.table.rows.map((r) => row(r, 'td')).join('')}</table>`
    : '';
  return `<h2>${escape(s.title)}</h2><ul>${facts}</ul>${table}${s.more ? `<p>and ${s.more} more</p>` : ''}`;
}

/** One message for the alerts of one sync: a short plain-text and HTML summary of each. */
export function emailOf(alerts: readonly OutboxAlert[]): { subject: string; text: string; html: string } {
  const summaries = alerts.map((a) => summaryOf(JSON.parse(a.payload) as AlertBody));
  const subject =
    summaries.length === 1
      ? `org-analytics-mcp: ${summaries[0]!.title}`
      : `org-analytics-mcp: ${summaries.length} alerts`;
  return {
    subject,
    text: summaries.map(textOf).join('\n\n---\n\n'),
    html: summaries.map(htmlOf).join('<hr>'),
  };
}

/**
 * Sends it over SMTP. The server's answer as a receiver's: accepted is 200, a permanent refusal (5xx) is final
 * like a 4xx (400), a temporary one (4xx) is tried again like a 503; no answer throws.
 */
export async function sendEmail(destination: EmailDestination, alerts: readonly OutboxAlert[]): Promise<Answer> {
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    url: destination.smtpUrl,
    connectionTimeout: DELIVERY_TIMEOUT_MS,
    greetingTimeout: DELIVERY_TIMEOUT_MS,
    socketTimeout: DELIVERY_TIMEOUT_MS,
  });
  try {
    await transport.sendMail({ from: destination.from, to: destination.to, ...emailOf(alerts) });
    return { status: 200, head: '' };
  } catch (error) {
    const code = (error as { responseCode?: number }).responseCode;
    if (code === undefined) throw error;
    const head = `SMTP ${code}: ${(error as { response?: string }).response ?? ''}`.slice(0, 200);
    return { status: code >= 500 ? 400 : 503, head };
  } finally {
    transport.close();
  }
}
