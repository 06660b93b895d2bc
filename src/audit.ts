import { appendFileSync } from 'node:fs';
import type { Pseudonymizer } from './pii.js';

export interface AuditRecord {
  identity: string;
  kind: 'user' | 'service_account';
  resource: string;
  period: string;
  /** The limit before ("" cleared, null none), and the limit asked for ("" clears). */
  before: string | null;
  after: string;
  outcome: 'applied' | 'failed' | 'unknown';
  reason?: string;
}

export type AuditSink = (records: AuditRecord[]) => void;

/**
 * One JSON line per budget change that was sent upstream: to stderr always, and appended to a file
 * when --audit-log is given. Emails are pseudonymised in pseudonymous mode.
 */
export function createAuditSink(pii: Pseudonymizer, path?: string, stderr: (text: string) => void = (t) => process.stderr.write(t)): AuditSink {
  return (records) => {
    if (records.length === 0) return;
    const time = new Date().toISOString();
    // Reasons can quote emails (upstream messages do): the whole record goes through the pseudonymizer.
    const text = records.map((r) => `${JSON.stringify(pii.value({ time, event: 'budget_override', ...r, identity: r.kind === 'user' ? pii.email(r.identity) : r.identity }))}\n`).join('');
    stderr(text);
    if (path) appendFileSync(path, text, { encoding: 'utf8', mode: 0o600 });
  };
}
