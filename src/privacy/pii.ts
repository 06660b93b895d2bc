import { createHash, createHmac } from 'node:crypto';

// Wide on purpose: any local part (Unicode, &, apostrophes inside it) and any domain, single-label too,
// so that no address slips through into an answer or a log.
const EMAIL = /[^\s@<>()[\]{},;:"'`|\\]+(?:'[^\s@<>()[\]{},;:"'`|\\]+)*@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*/gu;
const PSEUDONYM = /^user-[0-9a-f]{12}@/;

/**
 * In pseudonymous mode every email in answers and logs becomes a stable pseudonym that keeps the
 * domain (user-<12 hex>@domain), and tools accept those pseudonyms wherever they accept an email.
 */
export class Pseudonymizer {
  private readonly back = new Map<string, string>();
  private readonly key: Buffer;

  constructor(
    readonly mode: 'full' | 'pseudonymous',
    key: string,
  ) {
    this.key = createHash('sha256').update(`org-analytics-mcp pseudonyms\u0000${key}`).digest();
  }

  get enabled(): boolean {
    return this.mode === 'pseudonymous';
  }

  /** The pseudonym of an email (or the email itself in full mode). */
  email(email: string): string {
    if (!this.enabled || PSEUDONYM.test(email)) return email;
    const lower = email.toLowerCase();
    const at = lower.lastIndexOf('@');
    const id = createHmac('sha256', this.key).update(lower).digest('hex').slice(0, 12);
    const pseudonym = `user-${id}${lower.slice(at)}`;
    this.back.set(pseudonym, lower);
    return pseudonym;
  }

  /** Every email inside a text replaced by its pseudonym. */
  text(text: string): string {
    return this.enabled ? text.replace(EMAIL, (m) => this.email(m)) : text;
  }

  /** A deep copy of a JSON value with every email in every string replaced. */
  value<T>(value: T): T {
    if (!this.enabled) return value;
    return JSON.parse(JSON.stringify(value), (_k, v: unknown) => (typeof v === 'string' ? this.text(v) : v)) as T;
  }

  isPseudonym(text: string): boolean {
    return PSEUDONYM.test(text.toLowerCase());
  }

  /** The email behind a pseudonym seen before; undefined when unknown. Any other text comes back as is. */
  resolve(text: string): string | undefined {
    if (!this.isPseudonym(text)) return text;
    return this.back.get(text.toLowerCase());
  }

  /** Teaches the pseudonymizer emails it may be asked to resolve later. */
  learn(emails: Iterable<string>): void {
    if (!this.enabled) return;
    for (const e of emails) this.email(e);
  }
}
