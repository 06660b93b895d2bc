import { CHANGE_ARGUMENTS, UserInputError } from '../errors.js';
import { type UpstreamError, UPSTREAM_FAILURES, type UpstreamFailure } from '../upstream/errors.js';

/** Every failure a tool call can end in, by origin; a `switch` on `kind` narrows to the class. */
export type KnownError = UpstreamFailure | UserInputError;
export type ErrorKind = KnownError['kind'];

/** False for anything else: a bug, reported as one. */
export function isKnownError(error: unknown): error is KnownError {
  return error instanceof UserInputError || UPSTREAM_FAILURES.some((failure) => error instanceof failure);
}

/**
 * The one place where failures become words for the model: what happened and what to do next.
 * Every tool failure ends up here and becomes an isError result, never a protocol error.
 */
export function toolErrorMessage(error: unknown): string {
  if (!isKnownError(error)) return internalError(error);
  switch (error.kind) {
    case 'user_input':
      return `${sentence(error.message)} ${error.nextStep}`;
    case 'invalid_argument':
      return `${sentence(error.message)} ${CHANGE_ARGUMENTS}`;
    case 'unauthenticated':
    case 'permission_denied':
      return refusal(error);
    case 'login_required':
      return `${sentence(error.message)} ${SIGN_IN}`;
    case 'rate_limited': {
      const seconds = Math.max(1, Math.ceil((error.retryAt - Date.now()) / 1000));
      return `The analytics API rate limit is exhausted. Try again after ${new Date(error.retryAt).toISOString().slice(11, 19)} UTC (about ${seconds} s); narrower questions need fewer requests.`;
    }
    case 'unavailable':
      if (error.neverReached)
        return `${serviceOf(error)} could not be reached: ${sentence(error.message)} ${unreachedAdvice(error)}`;
      return `${serviceOf(error)} is unavailable: ${sentence(error.message)} ${nextStep(error, 'Try again in a minute.')}`;
    case 'too_large':
      return `${serviceOf(error)} sent a response too large to read: ${sentence(error.message)} The request was stopped and nothing of it was kept. Try a shorter date range (or, in a tool that takes page_size, one page at a time); if pages this large are expected, whoever runs this server raises the cap (--max-response-mb, ANALYTICS_MAX_RESPONSE_MB) and restarts it.`;
    case 'timeout': {
      const head = `${serviceOf(error)} did not answer in time: ${sentence(error.message)}`;
      if (error.neverReached && error.phase === 'connect') return `${head} ${unreachedAdvice(error)}`;
      const budget =
        error.phase === 'call'
          ? ' The server gives each call this long (--call-timeout, ANALYTICS_CALL_TIMEOUT_S); MCP clients give up after about 60 s.'
          : '';
      const read =
        error.request?.host === 'site'
          ? 'Try again in a minute.'
          : 'Try again in a minute; if it keeps timing out, ask a narrower question (a shorter date range, fewer rows), which needs fewer requests.';
      return `${head} ${nextStep(error, read)}${budget}`;
    }
    case 'protocol':
      return `The analytics API sent an answer this server does not understand: ${error.message} Retrying will probably not help; report it if it persists.`;
    case 'cancelled':
      return 'The request was cancelled before it finished.';
    default: {
      const unhandled: never = error;
      return internalError(unhandled);
    }
  }
}

function internalError(error: unknown): string {
  return `Internal error in org-analytics-mcp: ${error instanceof Error ? error.message : String(error)}. This is a bug; the details are in the server log. Try a different question or report it.`;
}

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** A rejected token, or one without the scope; the public changelog is sent no token, so there it means the wrong site. */
function refusal(error: Extract<KnownError, { kind: 'unauthenticated' | 'permission_denied' }>): string {
  if (error.request?.host === 'site')
    return `${sentence(error.message)} The changelog needs no token, so ANALYTICS_SITE_URL may point to the wrong site: check it, or try again later.`;
  const login = error.request?.credential === 'login';
  if (error.kind === 'unauthenticated')
    return login
      ? `The analytics API rejected the login's token (401), also after refreshing it. ${SIGN_IN}`
      : `The analytics API rejected the API token (401). Set ANALYTICS_API_TOKEN to a valid service-account token${TENANT_TOKEN} and restart the server (or run with --demo to use the simulator).`;
  return login
    ? `${error.message}. Reading needs the read scope; changing budgets needs the write scope: to grant both, the user runs \`org-analytics-mcp login --scopes read,write\` in a terminal, then asks again.`
    : `${error.message}. Reading needs a token with the read scope; changing budgets needs the write scope. Ask an admin for a token with the right scope and set ANALYTICS_API_TOKEN${TENANT_TOKEN}.`;
}

/** Where a shared server's token is set instead: the variable its tenants file names. */
const TENANT_TOKEN = " (on a server with --tenants-file, the variable named by the tenant's token_env)";

const SIGN_IN =
  'The user signs in by running `org-analytics-mcp login` in a terminal (add `--scopes read,write` to change budgets), then asks again; the server picks the login up without a restart.';

function serviceOf(error: UpstreamError): string {
  return error.request?.host === 'site' ? 'The public changelog' : 'The analytics API';
}

/** What was already tried, and what to do now: writes are never resent once they may have landed. */
function nextStep(error: UpstreamError, readAdvice: string): string {
  const request = error.request;
  if (request?.write) {
    if (error.neverReached) return 'The change was not sent, so nothing was applied; try again in a minute.';
    return 'Writes are not retried, so the change may or may not have been applied: check with get_budget_overrides (or repeat the same call with dry_run: true, which shows what is still to change) before trying again.';
  }
  const retries = (request?.attempts ?? 0) - 1;
  return retries > 0 ? `It was retried ${retries} time${retries > 1 ? 's' : ''} already. ${readAdvice}` : readAdvice;
}

/** A connection that never reached the upstream: a proxy that is down, or an address that is wrong. */
function unreachedAdvice(error: UpstreamError): string {
  const nothing = error.request?.write ? ' Nothing was applied.' : '';
  if (error.proxyVariable) {
    return `The request never got past the proxy.${nothing} Check ${error.proxyVariable} (and NO_PROXY) and that the proxy is running, then try again.`;
  }
  const variable = error.request?.host === 'site' ? 'ANALYTICS_SITE_URL' : 'ANALYTICS_BASE_URL';
  return `The request never reached it.${nothing} Check that ${variable} is right (a wrong host or port fails exactly like this), then try again in a minute.`;
}
