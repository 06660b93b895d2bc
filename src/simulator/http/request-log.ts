export interface RequestLogEntry {
  /** The simulator clock's time (which tests may freeze). */
  at: string;
  /** Real time of arrival, epoch ms: for ordering and pacing checks. */
  receivedAt: number;
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
  /**
   * What the token allowed, never the token itself: 'write' (the read-write token, or an OAuth token with the
   * write scope), 'read' (the read-only token, or an OAuth token without write), 'expired' (an OAuth access token
   * that expired or was revoked), 'invalid' (any other token) or 'none'.
   */
  auth: 'write' | 'read' | 'expired' | 'invalid' | 'none';
  userAgent?: string;
  /** The W3C trace context the request carried, as sent: a trace followed from the caller shows here. */
  traceparent?: string;
  fault?: string;
}

/** The most recent API and OAuth requests, so tests can assert what reached the upstream (and what did not). */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  constructor(private readonly max = 20_000) {}

  add(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
  }

  list(): RequestLogEntry[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries = [];
  }
}
