import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringifyWithBigInts } from '../../util/json.js';
import { accessOf, bearerOf, requireScope, type StaticTokens } from './credentials.js';
import { ApiError, ChangelogError } from './errors.js';
import { DEFAULT_TRICKLE_INTERVAL_MS, type FaultKind, type Faults, type FaultSpec } from './faults.js';
import { DEFAULT_HUGE_BYTES, sendHugeBody } from './huge-body.js';
import { parseJsonBody, readBodyText, readQuery } from './params.js';
import type { OAuthContext } from '../oauth/context.js';
import type { RateLimiter } from './rate-limit.js';
import type { RequestLog, RequestLogEntry } from './request-log.js';
import { CHANGELOG_PATH, ROUTES } from './routes.js';
import type { SimState } from '../state.js';

/** What a running simulator serves every request with: its state, limits, faults, log, tokens and OAuth server. */
export interface SimulatorContext {
  state: SimState;
  limiter: RateLimiter;
  faults: Faults;
  log: RequestLog;
  staticTokens: StaticTokens;
  oauth: OAuthContext;
  retryAfter: boolean;
  /** Responses held open by 'hang', 'trickle' and 'huge' faults, released when the simulator closes. */
  hanging: Set<ServerResponse>;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = stringifyWithBigInts(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

type Send = typeof sendJson;

/** Sends status and headers at once, then the body one byte every `intervalMs`: a response that is never quite late. */
function trickle(sim: SimulatorContext, intervalMs: number): Send {
  return (res, status, body, headers = {}) => {
    const bytes = Buffer.from(stringifyWithBigInts(body));
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': bytes.length,
      ...headers,
    });
    res.flushHeaders();
    sim.hanging.add(res);
    let sent = 0;
    const timer = setInterval(() => {
      res.write(bytes.subarray(sent, ++sent));
      if (sent >= bytes.length) res.end();
    }, intervalMs);
    res.on('close', () => {
      clearInterval(timer);
      sim.hanging.delete(res);
    });
  };
}

function errorBody(status: number, code: string, message: string) {
  return { status, body: { error: { code, message } } };
}

function retryAfterHeader(sim: SimulatorContext, ms: number, explicit?: number): Record<string, string> {
  if (explicit !== undefined) return { 'retry-after': String(explicit) };
  return sim.retryAfter ? { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) } : {};
}

function applyFault(
  sim: SimulatorContext,
  fault: FaultSpec & { kind: Exclude<FaultKind, 'trickle'> },
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): number {
  const changelog = path === CHANGELOG_PATH;
  switch (fault.kind) {
    case '500':
    case '503': {
      const status = Number(fault.kind);
      const body = changelog
        ? new ChangelogError(
            status,
            'CHANGELOG_UNAVAILABLE',
            'Changelog content is temporarily unavailable.',
            'Retry in a few minutes.',
          ).body()
        : errorBody(status, status === 500 ? 'Internal' : 'Unavailable', 'Injected server error.').body;
      sendJson(res, status, body);
      return status;
    }
    case '429':
      sendJson(
        res,
        429,
        errorBody(429, 'ResourceExhausted', 'Rate limit exceeded.').body,
        retryAfterHeader(sim, 10_000, fault.retryAfterSeconds),
      );
      return 429;
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end('{"users": [{"user_email": "trunc');
      return 200;
    case 'huge':
      sendHugeBody(res, fault.bytes ?? DEFAULT_HUGE_BYTES, fault.contentLength ?? true, sim.hanging);
      return 200;
    case 'reset':
      req.socket.resetAndDestroy();
      return 0;
    case 'hang':
      sim.hanging.add(res);
      res.on('close', () => sim.hanging.delete(res));
      return 0;
  }
}

/** Serves one API request: route, fault, auth, rate limit, validation, answer; and logs it. */
export async function handleApi(
  sim: SimulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const path = url.pathname;
  const access = accessOf(sim, req);
  const entry: RequestLogEntry = {
    at: sim.state.generatedAt(),
    receivedAt: Date.now(),
    method: req.method ?? 'GET',
    path,
    query: Object.fromEntries(url.searchParams),
    body: undefined,
    status: 0,
    auth: access.auth,
    userAgent: req.headers['user-agent'],
    ...(req.headers.traceparent ? { traceparent: String(req.headers.traceparent) } : {}),
  };
  let send: Send = sendJson;
  try {
    const raw = await readBodyText(req);
    try {
      entry.body = raw.trim() === '' ? undefined : JSON.parse(raw);
    } catch {
      entry.body = raw;
    }
    const fault = sim.faults.take(path);
    if (fault) entry.fault = fault.kind;
    if (fault && fault.kind !== 'trickle') {
      entry.status = applyFault(sim, { ...fault, kind: fault.kind }, path, req, res);
      return;
    }
    // A trickle fault slows down the answer the request would have had, success or error.
    if (fault?.kind === 'trickle') send = trickle(sim, fault.intervalMs ?? DEFAULT_TRICKLE_INTERVAL_MS);
    const route = ROUTES[path];
    if (!route) throw new ApiError(404, 'NotFound', `No endpoint at ${path}.`);
    if (req.method !== route.method) {
      if (path === CHANGELOG_PATH)
        throw new ChangelogError(405, 'METHOD_NOT_ALLOWED', `${path} accepts GET only.`, 'Send a GET request.');
      throw new ApiError(405, 'MethodNotAllowed', `${path} accepts ${route.method} only.`, { allow: route.method });
    }
    if (route.scope !== null) {
      requireScope(access, route.scope);
      // Buckets belong to the token itself, however the header spells the scheme or spaces.
      const decision = sim.limiter.take(bearerOf(req)!, route.group);
      if (!decision.ok) {
        throw new ApiError(
          429,
          'ResourceExhausted',
          'Rate limit exceeded; requests are blocked for about 10 seconds.',
          retryAfterHeader(sim, decision.retryAfterMs),
        );
      }
    }
    // The POST endpoints take everything in the body, so any query parameter is unknown.
    if (route.method === 'POST') readQuery(url.searchParams, []);
    const result = route.handle({
      state: sim.state,
      query: url.searchParams,
      body: route.method === 'POST' ? parseJsonBody(raw) : undefined,
    });
    entry.status = 200;
    send(res, 200, result);
  } catch (error) {
    if (error instanceof ChangelogError) {
      entry.status = error.status;
      send(res, error.status, error.body());
    } else if (error instanceof ApiError) {
      entry.status = error.status;
      // A body that was not read to the end leaves the connection unusable: close it after answering.
      const close: Record<string, string> = req.readableEnded ? {} : { connection: 'close' };
      send(res, error.status, errorBody(error.status, error.code, error.message).body, { ...error.headers, ...close });
    } else {
      entry.status = 500;
      send(res, 500, errorBody(500, 'Internal', 'Internal server error.').body);
    }
  } finally {
    sim.log.add(entry);
  }
}
