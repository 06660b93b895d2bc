import { inputRequired, inputResponse, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { clientCapabilities } from './confirmation.js';
import type { ConversationSignIn } from '../login/sign-in.js';
import { remainingMs } from '../upstream/transport/deadline.js';

/** How long a call re-sent after "I opened the link" waits for the browser to come back, within its budget. */
const WAIT_FOR_BROWSER_MS = 30_000;

/**
 * When a call needs a login and there is none: on clients that take URL elicitation, the sign-in link is
 * offered in the conversation. 'retry': the user signed in, so run the call again. undefined: the client
 * cannot show a link, or the user declined or has not finished; the call answers the error saying to run `login`.
 */
export async function offerSignIn(
  server: McpServer,
  ctx: ServerContext,
  signIn: ConversationSignIn,
  signal: AbortSignal,
): Promise<'retry' | Awaited<ReturnType<typeof inputRequired>> | undefined> {
  if (clientCapabilities(server, ctx)?.elicitation?.url === undefined) return undefined;
  const view = inputResponse(ctx.mcpReq.inputResponses, 'sign_in');
  if (view.kind === 'elicit') {
    if (view.action !== 'accept') return undefined;
    const waited = await signIn.signedIn(Math.min(WAIT_FOR_BROWSER_MS, Math.max(0, remainingMs(signal) - 5_000)));
    return waited ? 'retry' : undefined;
  }
  return inputRequired({
    inputRequests: {
      sign_in: inputRequired.elicitUrl({
        message:
          'Sign in to read your organization’s usage analytics: open the link, approve, then come back. (Read access only; to change budgets, run `org-analytics-mcp login --scopes read,write` in a terminal.)',
        url: await signIn.url(),
      }),
    },
  });
}
