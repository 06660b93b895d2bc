import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { SCOPE_DESCRIPTIONS, type Scope } from './scopes.js';

const STYLE = [
  'body{font:16px/1.5 system-ui,sans-serif;color:#1f2328;background:#f6f8fa;margin:0}',
  'main{max-width:30rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}',
  'h1{font-size:1.4rem;margin-top:0}code{font-size:.95em}',
  'form{display:flex;gap:.75rem;margin-top:1.5rem}',
  'button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #d0d7de;background:#f6f8fa;cursor:pointer}',
  'button[value=approve]{background:#1f883d;border-color:#1a7f37;color:#fff}',
].join('');

// The page's only style is allowed by its hash, so the policy needs neither 'unsafe-inline' nor any other source.
const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${content}
</main>
</body>
</html>
`;
}

export interface ConsentDetails {
  clientId: string;
  scopes: readonly Scope[];
  email: string;
  /** The id of the pending authorization request, the form's only link to it. */
  requestId: string;
  action: string;
}

export function consentPage({ clientId, scopes, email, requestId, action }: ConsentDetails): string {
  const abilities = scopes.map((scope) => `<li>${escapeHtml(SCOPE_DESCRIPTIONS[scope])}</li>`).join('\n');
  return page(
    'Authorize access',
    `<p>Signed in as <strong>${escapeHtml(email)}</strong>.</p>
<p>The application <code>${escapeHtml(clientId)}</code> asks for permission to:</p>
<ul>
${abilities}
</ul>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="request" value="${escapeHtml(requestId)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function errorPage(message: string): string {
  return page(
    'Authorization request refused',
    `<p>${escapeHtml(message)}</p>
<p>Nothing was sent back to the application. Start signing in again from there.</p>`,
  );
}

/**
 * Browsers check form-action against where the form's answer redirects too, so the consent page allows the
 * redirect URI's origin; CSP has no syntax for an IPv6 literal, so for [::1] the directive is left out.
 */
function formAction(redirectUri: string | undefined): string {
  if (redirectUri === undefined) return "; form-action 'self'";
  const { origin, hostname } = new URL(redirectUri);
  return hostname.startsWith('[') ? '' : `; form-action 'self' ${origin}`;
}

export function sendHtml(res: ServerResponse, status: number, html: string, redirectUri?: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; style-src ${STYLE_SOURCE}; base-uri 'none'; frame-ancestors 'none'${formAction(redirectUri)}`,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
  res.end(html);
}
