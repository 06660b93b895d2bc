import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { FAULT_KINDS } from './http/faults.js';
import { bearerOf } from './http/credentials.js';
import { sendJson, type SimulatorContext } from './http/http-handler.js';
import { parseJsonBody, readBodyText } from './http/params.js';
import { orgChartCsv } from './data/org-chart-csv.js';

export const CONTROL_PREFIX = '/__sim/';

const faultBody = z
  .object({
    path: z.string().min(1),
    kind: z.enum(FAULT_KINDS),
    count: z.number().int().min(1).default(1),
    retry_after_seconds: z.number().int().min(0).optional(),
    interval_ms: z.number().int().min(1).optional(),
    skip: z.number().int().min(0).optional(),
    bytes: z.number().int().min(1).optional(),
    content_length: z.boolean().optional(),
  })
  .strict();

export const settingsUpdateSchema = z
  .object({
    now: z.union([z.string(), z.number()]).optional(),
    frozen: z.boolean().optional(),
    advance_ms: z.number().optional(),
    plan: z.enum(['credits', 'usd']).optional(),
    rate_limit: z.boolean().optional(),
    time_scale: z.number().positive().optional(),
    retry_after: z.boolean().optional(),
    changelog_unavailable: z.boolean().optional(),
    oauth_auto_approve: z.boolean().optional(),
    /** For access tokens issued from now on. */
    oauth_access_token_ttl_s: z.number().int().min(1).optional(),
    oauth_revoke_all: z.literal(true).optional(),
  })
  .strict();

export type SettingsUpdate = z.infer<typeof settingsUpdateSchema>;

export function applySettings(sim: SimulatorContext, update: SettingsUpdate): void {
  if (update.now !== undefined) sim.state.clock.set(update.now, update.frozen ?? true);
  if (update.advance_ms !== undefined) sim.state.clock.advance(update.advance_ms);
  if (update.plan) sim.state.overrides.plan = update.plan;
  if (update.rate_limit !== undefined || update.time_scale !== undefined) {
    sim.limiter.update({
      ...(update.rate_limit !== undefined ? { enabled: update.rate_limit } : {}),
      ...(update.time_scale ? { timeScale: update.time_scale } : {}),
    });
  }
  if (update.retry_after !== undefined) sim.retryAfter = update.retry_after;
  if (update.changelog_unavailable !== undefined) sim.state.changelogUnavailable = update.changelog_unavailable;
  if (update.oauth_auto_approve !== undefined) sim.oauth.autoApprove = update.oauth_auto_approve;
  if (update.oauth_access_token_ttl_s !== undefined)
    sim.oauth.grants.settings.accessTokenTtlSeconds = update.oauth_access_token_ttl_s;
  if (update.oauth_revoke_all) sim.oauth.grants.revokeAll();
}

export function currentSettings(sim: SimulatorContext) {
  return {
    now: new Date(sim.state.clock.now()).toISOString(),
    plan: sim.state.overrides.plan,
    rate_limit: sim.limiter.settings.enabled,
    time_scale: sim.limiter.settings.timeScale,
    retry_after: sim.retryAfter,
    changelog_unavailable: sim.state.changelogUnavailable,
    pending_faults: sim.faults.pending(),
    users: sim.state.org.identities.length,
    oauth_auto_approve: sim.oauth.autoApprove,
    oauth_access_token_ttl_s: sim.oauth.grants.settings.accessTokenTtlSeconds,
  };
}

/** Test controls under /__sim/: faults, the request log, the clock and switches. Needs the configured read-write token, not an OAuth one. */
export async function handleControl(
  sim: SimulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const token = bearerOf(req);
  if (token === undefined || sim.staticTokens.get(token) !== 'write')
    return sendJson(res, 401, {
      error: { code: 'Unauthenticated', message: 'Control endpoints need the read-write token.' },
    });
  const action = `${req.method} ${url.pathname.slice(CONTROL_PREFIX.length)}`;
  try {
    const body = parseJsonBody(await readBodyText(req)) ?? {};
    switch (action) {
      case 'GET requests':
        return sendJson(res, 200, { requests: sim.log.list() });
      case 'DELETE requests':
        sim.log.clear();
        return sendJson(res, 200, { ok: true });
      case 'POST faults': {
        const f = faultBody.parse(body);
        sim.faults.inject({
          path: f.path,
          kind: f.kind,
          count: f.count,
          retryAfterSeconds: f.retry_after_seconds,
          intervalMs: f.interval_ms,
          skip: f.skip,
          bytes: f.bytes,
          contentLength: f.content_length,
        });
        return sendJson(res, 200, { ok: true, pending_faults: sim.faults.pending() });
      }
      case 'DELETE faults':
        sim.faults.clear();
        return sendJson(res, 200, { ok: true });
      case 'GET directory':
        res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
        return void res.end(orgChartCsv(sim.state.orgChart()));
      case 'GET settings':
        return sendJson(res, 200, currentSettings(sim));
      case 'POST settings':
        applySettings(sim, settingsUpdateSchema.parse(body));
        return sendJson(res, 200, currentSettings(sim));
      default:
        return sendJson(res, 404, { error: { code: 'NotFound', message: `No control action '${action}'.` } });
    }
  } catch (error) {
    return sendJson(res, 400, {
      error: { code: 'InvalidArgument', message: error instanceof Error ? error.message : String(error) },
    });
  }
}
