export const FAULT_KINDS = ['500', '503', 'hang', 'trickle', 'reset', 'malformed', '429', 'huge'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export const DEFAULT_TRICKLE_INTERVAL_MS = 3000;

export interface FaultSpec {
  /** An exact request path such as /analytics/v0/dau, or '*' for every API path. */
  path: string;
  kind: FaultKind;
  /** How many of the next matching requests fail this way. */
  count?: number;
  /** For kind '429': send this Retry-After (seconds). */
  retryAfterSeconds?: number;
  /** For kind 'trickle': milliseconds between the body's bytes (default 3000). */
  intervalMs?: number;
  /** For kind 'huge': the size of the 200 page sent (default 300 MB), made as it is sent. */
  bytes?: number;
  /** For kind 'huge': announce the size in a Content-Length (default true); false streams it chunked. */
  contentLength?: boolean;
  /** Let this many matching requests through untouched first (to fail, say, the second chunk of a write). */
  skip?: number;
}

interface Armed {
  spec: FaultSpec;
  remaining: number;
  skip: number;
}

/** Queued faults: the next N requests to a path answer with the fault instead of normally. */
export class Faults {
  private armed: Armed[] = [];

  inject(spec: FaultSpec): void {
    const count = spec.count ?? 1;
    if (!FAULT_KINDS.includes(spec.kind))
      throw new Error(`Unknown fault kind '${spec.kind}'; use one of ${FAULT_KINDS.join(', ')}.`);
    if (!Number.isInteger(count) || count < 1) throw new Error('count must be a positive integer.');
    if (spec.intervalMs !== undefined && !(Number.isInteger(spec.intervalMs) && spec.intervalMs >= 1))
      throw new Error('intervalMs must be a positive integer.');
    if (spec.bytes !== undefined && !(Number.isInteger(spec.bytes) && spec.bytes >= 1))
      throw new Error('bytes must be a positive integer.');
    this.armed.push({ spec, remaining: count, skip: spec.skip ?? 0 });
  }

  take(path: string): FaultSpec | undefined {
    const hit = this.armed.find((a) => a.spec.path === path || a.spec.path === '*');
    if (!hit) return undefined;
    if (hit.skip > 0) {
      hit.skip -= 1;
      return undefined;
    }
    hit.remaining -= 1;
    if (hit.remaining === 0) this.armed = this.armed.filter((a) => a !== hit);
    return hit.spec;
  }

  clear(): void {
    this.armed = [];
  }

  pending(): number {
    return this.armed.reduce((n, a) => n + a.remaining, 0);
  }
}
