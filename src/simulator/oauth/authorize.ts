import type { IncomingMessage, ServerResponse } from 'node:http';
import { consentPage, errorPage, sendHtml } from './consent-page.js';
import type { OAuthContext } from './context.js';
import type { AuthorizationRequest } from './pending-requests.js';
import { isPkceValue } from './pkce.js';
import { isRegisteredRedirectUri, redirectWith } from './redirect-uri.js';
import { parseScope } from './scopes.js';

/** Refused on a page of our own (the redirect cannot be trusted), refused back at the client, or good to go. */
type Reading = { refuse: string } | { redirect: string } | { request: AuthorizationRequest };

export const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

function sendRedirect(res: ServerResponse, location: string): number {
  res.writeHead(302, { location, 'cache-control': 'no-store', 'content-length': 0 });
  res.end();
  return 302;
}

/** RFC 6749 4.1.1 with PKCE required (S256 only), checked in the order of 4.1.2.1: client and redirect first. */
export function readAuthorizationRequest(oauth: OAuthContext, params: URLSearchParams): Reading {
  const clientIds = params.getAll('client_id');
  if (clientIds.length !== 1) return { refuse: 'The request must carry client_id exactly once.' };
  const clientId = clientIds[0]!;
  if (clientId !== oauth.clientId) return { refuse: `Unknown client_id '${clientId}'.` };
  const redirectUris = params.getAll('redirect_uri');
  if (redirectUris.length !== 1) return { refuse: 'The request must carry redirect_uri exactly once.' };
  const redirectUri = redirectUris[0]!;
  if (!isRegisteredRedirectUri(oauth.redirectUris, redirectUri))
    return { refuse: `redirect_uri '${redirectUri}' is not registered for client '${clientId}'.` };

  const state = params.getAll('state')[0];
  const fail = (error: string, description: string) => ({
    redirect: redirectWith(redirectUri, { error, error_description: description, state }),
  });
  const repeated = ['response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method'].filter(
    (name) => params.getAll(name).length > 1,
  );
  if (repeated.length > 0) return fail('invalid_request', `Repeated parameter: ${repeated.join(', ')}.`);
  const responseType = params.get('response_type');
  if (responseType === null) return fail('invalid_request', 'response_type is required.');
  if (responseType !== 'code')
    return fail('unsupported_response_type', `response_type must be 'code', got '${responseType}'.`);
  const codeChallenge = params.get('code_challenge');
  if (codeChallenge === null) return fail('invalid_request', 'code_challenge is required: this server requires PKCE.');
  const method = params.get('code_challenge_method');
  if (method !== 'S256')
    return fail('invalid_request', `code_challenge_method must be S256, got '${method ?? 'plain (the default)'}'.`);
  if (!isPkceValue(codeChallenge))
    return fail('invalid_request', 'code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~".');
  const scope = parseScope(params.get('scope') ?? '');
  if ('unknown' in scope)
    return fail('invalid_scope', `Unknown scope ${scope.unknown.map((s) => `'${s}'`).join(', ')}; use read, write.`);
  const scopes = scope.scopes.length > 0 ? scope.scopes : ['read' as const];
  return { request: { clientId, redirectUri, scopes, state, codeChallenge } };
}

function approve(oauth: OAuthContext, res: ServerResponse, request: AuthorizationRequest): number {
  const code = oauth.grants.issueCode(request, oauth.email);
  return sendRedirect(res, redirectWith(request.redirectUri, { code, state: request.state }));
}

/** GET {path}/authorize: an error page, an error redirect, the consent page, or (auto-approve) the code. */
export function answerAuthorize(oauth: OAuthContext, res: ServerResponse, params: URLSearchParams): number {
  const reading = readAuthorizationRequest(oauth, params);
  if ('refuse' in reading) {
    sendHtml(res, 400, errorPage(reading.refuse));
    return 400;
  }
  if ('redirect' in reading) return sendRedirect(res, reading.redirect);
  if (oauth.autoApprove) return approve(oauth, res, reading.request);
  const page = consentPage({
    clientId: reading.request.clientId,
    scopes: reading.request.scopes,
    email: oauth.email,
    requestId: oauth.pending.hold(reading.request),
    action: `${oauth.path}/authorize`,
  });
  sendHtml(res, 200, page, reading.request.redirectUri);
  return 200;
}

/** POST {path}/authorize: the consent form's answer, approve or deny. */
export function answerDecision(oauth: OAuthContext, req: IncomingMessage, res: ServerResponse, raw: string): number {
  const refuse = (message: string) => {
    sendHtml(res, 400, errorPage(message));
    return 400;
  };
  if (!FORM_CONTENT_TYPE.test(req.headers['content-type'] ?? ''))
    return refuse('The consent form must be posted as application/x-www-form-urlencoded.');
  const form = new URLSearchParams(raw);
  const decision = form.getAll('decision');
  if (decision.length !== 1 || (decision[0] !== 'approve' && decision[0] !== 'deny'))
    return refuse("The consent form must carry one decision, 'approve' or 'deny'.");
  const ids = form.getAll('request');
  const request = ids.length === 1 ? oauth.pending.release(ids[0]!) : undefined;
  if (!request) return refuse('This authorization request is unknown, already answered or expired.');
  if (decision[0] === 'approve') return approve(oauth, res, request);
  return sendRedirect(
    res,
    redirectWith(request.redirectUri, {
      error: 'access_denied',
      error_description: 'The user denied the request.',
      state: request.state,
    }),
  );
}
