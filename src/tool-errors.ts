import { isUpstreamError } from './upstream/errors.js';

/**
 * The one place where failures become words for the model: what happened and what to do next.
 * Every tool failure ends up here and becomes an isError result, never a protocol error.
 */
export function toolErrorMessage(error: unknown): string {
  if (!isUpstreamError(error)) {
    return `Internal error in org-analytics-mcp: ${error instanceof Error ? error.message : String(error)}. This is a bug; the details are in the server log. Try a different question or report it.`;
  }
  switch (error.kind) {
    case 'invalid_argument':
      return `${error.message}${error.message.endsWith('.') ? '' : '.'} Change the arguments and call again.`;
    case 'unauthenticated':
      return `The analytics API rejected the API token (401). Set ANALYTICS_API_TOKEN to a valid service-account token and restart the server (or run with --demo to use the simulator).`;
    case 'permission_denied':
      return `${error.message}. Reading needs a token with the read scope; changing budgets needs the write scope. Ask an admin for a token with the right scope and set ANALYTICS_API_TOKEN.`;
    case 'rate_limited': {
      const at = 'retryAt' in error ? Number(error.retryAt) : Date.now() + 10_000;
      const seconds = Math.max(1, Math.ceil((at - Date.now()) / 1000));
      return `The analytics API rate limit is exhausted. Try again after ${new Date(at).toISOString().slice(11, 19)} UTC (about ${seconds} s); narrower questions need fewer requests.`;
    }
    case 'unavailable':
      return `The analytics API is unavailable: ${error.message} It was retried already; try again in a minute.`;
    case 'timeout':
      return `The analytics API did not answer in time (${error.message}). Try again, or ask for a shorter date range.`;
    case 'protocol':
      return `The analytics API sent an answer this server does not understand: ${error.message} Retrying will probably not help; report it if it persists.`;
    case 'cancelled':
      return 'The request was cancelled before it finished.';
  }
}
