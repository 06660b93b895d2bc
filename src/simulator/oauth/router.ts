import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessOf } from '../http/credentials.js';
import { sendJson, type SimulatorContext } from '../http/http-handler.js';
import { readBodyText } from '../http/params.js';
import type { RequestLogEntry } from '../http/request-log.js';
import { answerAuthorize, answerDecision } from './authorize.js';
import { answerToken } from './token-endpoint.js';

const ENDPOINTS: Record<string, string> = { '/authorize': 'GET, POST', '/token': 'POST' };

/** The request parameters that may be logged: never a code, verifier, token, state or pending request id. */
const LOGGED_PARAMETERS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'code_challenge_method', 'decision'];

const loggable = (params: URLSearchParams) =>
  Object.fromEntries([...params].filter(([name]) => LOGGED_PARAMETERS.includes(name)));

export const isOAuthPath = (sim: SimulatorContext, pathname: string) => pathname.startsWith(`${sim.oauth.path}/`);

/** Serves {path}/authorize and {path}/token, logging each request without its secrets. */
export async function handleOAuth(
  sim: SimulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const oauth = sim.oauth;
  const endpoint = url.pathname.slice(oauth.path.length);
  const entry: RequestLogEntry = {
    at: sim.state.generatedAt(),
    receivedAt: Date.now(),
    method: req.method ?? 'GET',
    path: url.pathname,
    query: loggable(url.searchParams),
    body: undefined,
    status: 0,
    auth: accessOf(sim, req).auth,
    userAgent: req.headers['user-agent'],
  };
  try {
    const raw = await readBodyText(req);
    switch (`${entry.method} ${endpoint}`) {
      case 'GET /authorize':
        entry.status = answerAuthorize(oauth, res, url.searchParams);
        return;
      case 'POST /authorize':
        entry.body = loggable(new URLSearchParams(raw));
        entry.status = answerDecision(oauth, req, res, raw);
        return;
      case 'POST /token': {
        entry.body = { grant_type: new URLSearchParams(raw).get('grant_type') ?? undefined };
        const answer = answerToken(oauth, req, raw);
        entry.status = answer.status;
        return sendJson(res, answer.status, answer.body, { 'cache-control': 'no-store', pragma: 'no-cache' });
      }
    }
    const allow = ENDPOINTS[endpoint];
    entry.status = allow ? 405 : 404;
    sendJson(
      res,
      entry.status,
      {
        error: 'invalid_request',
        error_description: allow ? `${url.pathname} accepts ${allow} only.` : `No OAuth endpoint at ${url.pathname}.`,
      },
      { 'cache-control': 'no-store', ...(allow ? { allow } : {}) },
    );
  } finally {
    sim.log.add(entry);
  }
}
