import { hourText } from '../domain/published-days.js';
import {
  McpServer,
  type RegisteredTool,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import type { Config } from '../config/config.js';
import type { AuditSink } from '../privacy/audit.js';
import type { Caller } from '../auth/caller.js';
import { askToConfirm, confirmationFor } from './confirmation.js';
import { identityDirectory, type IdentityDirectory } from '../privacy/identity-directory.js';
import type { Logger } from '../logger.js';
import type { LoginCredential } from '../login/login-credential.js';
import type { ConversationSignIn } from '../login/sign-in.js';
import { offerSignIn } from './sign-in-offer.js';
import { registerViews, viewOfTool } from '../ui/views.js';
import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { LoginRequiredError } from '../upstream/errors.js';
import { redactorOf, type Redactor } from '../privacy/redact.js';
import type { Pseudonymizer } from '../privacy/pii.js';
import { registerPrompts } from './prompts.js';
import { registerChangelogResource } from './changelog-resource.js';
import { progressNotifier } from './progress-notifier.js';
import { logFailure, toolErrorMessage } from './tool-errors.js';
import { AnswerPending, answerSchema, answerWithinMs, pendingAnswer } from '../tools/shared/answer-pending.js';
import { ConfirmationNeeded } from '../tools/budget/confirmation-needed.js';
import { advertisedInput, withCheckedArgs } from '../tools/shared/input-validation.js';
import { keepProtoArguments } from './proto-argument.js';
import { TOOLS } from '../tools/index.js';
import type { ToolContext, ToolDef } from '../tools/types.js';
import type { AnalyticsClient } from '../upstream/client.js';
import { callSignal } from '../upstream/transport/deadline.js';
import { serverInfo } from './server-info.js';
import { cacheHintsFor } from './cache-hints.js';

export interface ServerDeps {
  client: AnalyticsClient;
  config: Config;
  log: Logger;
  pii: Pseudonymizer;
  audit: AuditSink;
  /** Credentials to scrub from everything sent to the client (the API token is always included). */
  secrets?: Array<string | undefined>;
  tools?: ToolDef[];
  /** Who is calling, on an HTTP server whose callers authenticate. */
  caller?: Caller;
  /** Signs confirmation state; the same for every replica with the same upstream token (see createRuntime). */
  confirmKey?: Uint8Array;
  /** The login the upstream requests use, when there is no token: its scopes decide whether writes are offered. */
  login?: LoginCredential;
  /** Offers the sign-in link in the conversation, on clients that take URL elicitation. */
  signIn?: ConversationSignIn;
}

const instructions = (refreshHour: number) =>
  `Usage analytics, costs and budgets of one organization's AI coding product. Dates are UTC; a day is complete from ${hourText(refreshHour)} the next day (credit usage also has today, partially). ` +
  'Prefer `range` (last_30_days, previous_month…) over computing dates. Totals in answers cover all rows, not only those shown.';

/**
 * Builds the MCP server: every tool, the changelog resource and the prompts, with one error boundary.
 * `onlyTool`: the server answers one tools/call of this tool and nothing else (an HTTP request that is
 * exactly that), so only that tool is registered; when it names no tool this server has, everything is.
 */
export function createServer(deps: ServerDeps, onlyTool?: string): McpServer {
  const server = new McpServer(serverInfo(), {
    instructions: instructions(deps.client.refreshHour),
    cacheHints: cacheHintsFor(deps),
  });
  keepProtoArguments(server);
  const directory = identityDirectory(deps.client, deps.pii);
  const redact = redactorOf(deps);
  const tools = (deps.tools ?? TOOLS).filter((def) => !(def.writes && deps.config.readOnly));
  const only = tools.filter((def) => def.name === onlyTool);
  const gated: RegisteredTool[] = [];
  for (const def of only.length ? only : tools) {
    const view = deps.config.noUi ? undefined : viewOfTool(def.name);
    const config = { title: def.title, description: def.description, ...schemasOf(def), annotations: def.annotations };
    // Arguments are checked inside the handler, so a bad one gets our words through the one error funnel.
    const handler = (args: unknown, ctx: ServerContext) =>
      runTool(server, withCheckedArgs(def), args, ctx, deps, directory, redact);
    // Hosts that render MCP Apps show the answer in its view; others ignore the link and read the same answer.
    const registered = view
      ? registerAppTool(server, def.name, { ...config, _meta: { ui: { resourceUri: view.uri } } }, handler)
      : server.registerTool(def.name, config, handler);
    if (def.writes && deps.login) gated.push(registered);
  }
  if (deps.login) gateOnScopes(server, deps.login, gated);
  if (only.length) return server;
  if (!deps.config.noUi) registerViews(server, () => !deps.config.readOnly && (!deps.login || deps.login.canWrite()));
  registerChangelogResource(server, {
    client: deps.client,
    redact,
    log: deps.log,
    callTimeoutS: deps.config.callTimeoutS,
  });
  registerPrompts(server, deps.config.readOnly, redact, deps.log);
  return server;
}

/**
 * A login without the write scope cannot change budgets, so the write tools are hidden as with --read-only;
 * they appear (tools/list_changed) once a login with the write scope is in use, and go when it is not.
 */
function gateOnScopes(server: McpServer, login: LoginCredential, tools: RegisteredTool[]): void {
  const apply = () => {
    const allowed = login.canWrite();
    for (const tool of tools) {
      if (tool.enabled === allowed) continue;
      if (allowed) tool.enable();
      else tool.disable();
    }
  };
  apply();
  const stop = login.onChange(apply);
  const closed = server.server.onclose;
  server.server.onclose = () => {
    stop();
    closed?.();
  };
}

/** The call answers with the sign-in link (input required), not with data. */
class SignInOffered extends Error {
  constructor(readonly result: Exclude<Awaited<ReturnType<typeof offerSignIn>>, 'retry' | undefined>) {
    super('sign-in offered');
  }
}

const schemas = new WeakMap<ToolDef, { inputSchema: StandardSchemaWithJSON; outputSchema: StandardSchemaWithJSON }>();
/** A tool's registered schemas, built once: an HTTP server is built per request, and zod compiles a schema on first use. */
function schemasOf(def: ToolDef) {
  let built = schemas.get(def);
  if (!built)
    schemas.set(def, (built = { inputSchema: advertisedInput(def.input), outputSchema: answerSchema(def.output) }));
  return built;
}

async function runTool(
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
      def.writes && deps.config.confirmWrites !== 'never'
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
