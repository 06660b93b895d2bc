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
  /** Which configured token was used: 'write', 'read', 'invalid' or 'none'. Never the token itself. */
  auth: 'write' | 'read' | 'invalid' | 'none';
  userAgent?: string;
  fault?: string;
}

/** The most recent API requests, so tests can assert what reached the upstream (and what did not). */
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
