import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { askToConfirm, confirmationFor } from './confirmation.js';
import type { IdentityDirectory } from '../privacy/identity-directory.js';
import { offerSignIn } from './sign-in-offer.js';
import { LoginRequiredError } from '../upstream/errors.js';
import type { Redactor } from '../privacy/redact.js';
import { progressNotifier } from './progress-notifier.js';
import { logFailure } from './tool-errors.js';
import { toolErrorMessage } from '../tools/failure-text.js';
import { pendingAnswer } from './answer-pending.js';
import { AnswerPending, answerWithinMs } from '../upstream/listing/list-all.js';
import { ConfirmationNeeded } from '../tools/budgets/confirmation-needed.js';
import type { ToolContext, ToolDef } from '../tools/types.js';
import { callSignal } from '../upstream/transport/deadline.js';
import type { ServerDeps } from './server-deps.js';
import { writes } from './tool-inventory.js';

/** The call answers with the sign-in link (input required), not with data. */
class SignInOffered extends Error {
  constructor(readonly result: Exclude<Awaited<ReturnType<typeof offerSignIn>>, 'retry' | undefined>) {
    super('sign-in offered');
  }
}

/** One tools/call, through the one error funnel: the answer, a pending answer, a confirmation or a sign-in link. */
export async function runTool(
  server: McpServer,
  def: ToolDef,
  args: unknown,
  ctx: ServerContext,
  deps: ServerDeps,
  directory: IdentityDirectory,
  redact: Redactor,
) {
  const started = Date.now();
  const progress = progressNotifier(ctx);
  // The call's budget: past it everything below stops, and the call answers a TimeoutError, not a cancel.
  const { signal, end } = callSignal(ctx.mcpReq.signal, deps.config.callTimeoutS * 1000);
  const toolCtx: ToolContext = {
    client: deps.client,
    config: deps.config,
    pii: deps.pii,
    log: deps.log,
    signal,
    progress: progress.report,
    resolveEmail: (text) => directory.resolve(text, signal),
    audit: deps.audit,
    confirmation:
      writes(def) && deps.config.confirmWrites !== 'never'
        ? confirmationFor(
            server,
            ctx,
            deps.config.transport === 'http' || deps.config.confirmWrites === 'always',
            deps.confirmKey,
          )
        : undefined,
  };
  let outcome: 'ok' | 'error' | 'not_complete' | 'confirming' | 'signing_in' = 'error';
  const failed = (error: unknown) => {
    outcome = 'error';
    end();
    logFailure(deps.log, 'tool failed', error, { tool: def.name, ms: Date.now() - started });
    return { content: [{ type: 'text' as const, text: redact.text(toolErrorMessage(error)) }], isError: true };
  };
  const run = async () => {
    // The history store opens on the first call: what it holds decides which days a question may reach.
    await deps.client.historyReady();
    try {
      return await def.run(args as never, toolCtx);
    } catch (error) {
      if (!(error instanceof LoginRequiredError && deps.signIn)) throw error;
      const offered = await offerSignIn(server, ctx, deps.signIn, signal).catch(() => undefined);
      if (offered === 'retry') return def.run(args as never, toolCtx);
      if (offered) throw new SignInOffered(offered);
      throw error;
    }
  };
  try {
    const out = redact.value(await run());
    deps.log.debug('tool done', { tool: def.name, ms: Date.now() - started });
    const text = redact.text(def.text(out));
    outcome = def.isError?.(out) ? 'error' : 'ok';
    return {
      content: [{ type: 'text' as const, text }],
      // A tool's own `complete` wins: a budget write says there whether every chunk was applied.
      structuredContent: { complete: true, ...(out as Record<string, unknown>) },
      ...(def.isError?.(out) ? { isError: true } : {}),
    };
  } catch (error) {
    if (error instanceof AnswerPending) {
      const pending = pendingAnswer(def.name, error.status, answerWithinMs(deps.config));
      outcome = 'not_complete';
      deps.log.info('answered not complete yet', { tool: def.name, ms: Date.now() - started, ...pending.structured });
      return { content: [{ type: 'text' as const, text: pending.text }], structuredContent: pending.structured };
    }
    if (error instanceof SignInOffered) {
      outcome = 'signing_in';
      return error.result;
    }
    if (!(error instanceof ConfirmationNeeded)) return failed(error);
    outcome = 'confirming';
    deps.log.info('asking the user to confirm', { tool: def.name });
    // Even minting the request state can fail: that too is answered through the funnel, not by the SDK.
    return askToConfirm(redact.text(error.message), error.digest, deps.confirmKey).catch(failed);
  } finally {
    progress.stop();
    // The access line: one per call, naming who asked (on a server whose callers authenticate) and how it ended.
    deps.log.info('call', {
      tool: def.name,
      outcome,
      ms: Date.now() - started,
      ...(deps.caller ? { caller: deps.caller.id, tenant: deps.caller.tenant } : {}),
    });
  }
}
