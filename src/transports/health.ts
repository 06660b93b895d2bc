import type { ServerResponse } from 'node:http';
import type { SharedRedis } from '../upstream/limits/redis-connection.js';

/** What /readyz checks: the upstream answers HTTP at all (no token spent), and Redis is connected when configured. */
export interface ReadinessTarget {
  baseUrl: string | undefined;
  redis: SharedRedis | undefined;
}

/** A readiness answer is reused this long, so that a probe every second costs the upstream nothing. */
const REUSE_MS = 5_000;

export class Health {
  private last: { at: number; ok: boolean; body: Record<string, string> } | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly target: () => ReadinessTarget) {}

  /** /healthz: the process is alive and serving. */
  live(res: ServerResponse, draining: boolean): void {
    json(res, draining ? 503 : 200, { status: draining ? 'draining' : 'ok' });
  }

  /** /readyz: 200 when the upstream and (if configured) Redis can be reached; 503 with which cannot. */
  async ready(res: ServerResponse, draining: boolean): Promise<void> {
    if (draining) return json(res, 503, { status: 'draining' });
    if (!this.last || Date.now() - this.last.at > REUSE_MS)
      // Probes that arrive while a check is under way share it: a flood of them sends one request upstream.
      this.checking ??= this.check().then((result) => {
        this.last = { at: Date.now(), ...result };
        this.checking = undefined;
      });
    if (this.checking) await this.checking;
    json(res, this.last!.ok ? 200 : 503, this.last!.body);
  }

  private async check(): Promise<{ ok: boolean; body: Record<string, string> }> {
    const { baseUrl, redis } = this.target();
    // Any HTTP answer (even 401 or 404) shows the upstream is reachable; only a network failure is not.
    const upstream = baseUrl
      ? await fetch(baseUrl, { method: 'HEAD', signal: AbortSignal.timeout(3_000) }).then(
          () => 'ok',
          () => 'unreachable',
        )
      : 'ok';
    const shared = redis ? (redis.ready() ? 'ok' : 'unreachable') : 'not configured';
    const ok = upstream === 'ok' && shared !== 'unreachable';
    return { ok, body: { status: ok ? 'ready' : 'not ready', upstream, redis: shared } };
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
