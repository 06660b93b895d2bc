import type { Caller } from '../auth/caller.js';
import type { ConversationSignIn } from '../login/sign-in.js';
import { LoginRequiredError } from '../upstream/errors.js';
import { callSignal } from '../upstream/transport/deadline.js';
import { progressNotifier } from './progress-notifier.js';
import { offerSignIn } from './sign-in-offer.js';
import { toolContextFor, type ToolCall, type ToolContextParts } from './tool-context.js';
import { answerOf, outcomeOfError, type Answer, type AnswerDeps, type Outcome } from './tool-outcomes.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { instruments } from '../telemetry/instruments.js';
import { callContext, inSpanOf, SpanKind, tenantLabel } from '../telemetry/spans.js';

/** What running a tool takes from the server: its context's parts, and what answering and the access line need. */
export interface ToolRunDeps extends ToolContextParts, Omit<AnswerDeps, 'config'> {
  /** Offers the sign-in link when a call needs a login and there is none. */
  signIn?: ConversationSignIn;
  /** Named on the access line, on a server whose callers authenticate. */
  caller?: Pick<Caller, 'id' | 'tenant'>;
}

/** Runs the tool; a call that needs a login is offered the sign-in link once, and runs again once the user signed in. */
async function outcomeOf(call: ToolCall, deps: ToolRunDeps, run: () => Promise<object>, signal: AbortSignal) {
  const attempt = async (offer: boolean): Promise<Outcome> => {
    try {
      return { kind: 'answered', out: (await run()) as Record<string, unknown> };
    } catch (error) {
      if (!(offer && error instanceof LoginRequiredError && deps.signIn)) return outcomeOfError(error);
      const offered = await offerSignIn(call.server, call.request, deps.signIn, signal).catch(() => undefined);
      if (offered === 'retry') return attempt(false);
      return offered ? { kind: 'signing_in', result: offered } : outcomeOfError(error);
    }
  };
  try {
    // The history store opens on the first call: what it holds decides which days a question may reach.
    await deps.client.historyReady();
  } catch (error) {
    return outcomeOfError(error);
  }
  return attempt(true);
}

/** Outcomes as the metrics name them. */
const OUTCOME: Record<Answer['logged'], string> = {
  ok: 'ok',
  error: 'error',
  not_complete: 'pending',
  confirming: 'confirming',
  signing_in: 'signing_in',
};

/**
 * One tools/call, in a span continuing the client's trace (`_meta.traceparent`, else the HTTP request's header),
 * counted and timed by tool and outcome.
 */
export async function runTool(call: ToolCall, deps: ToolRunDeps) {
  const { request, def } = call;
  const parent = callContext(request.mcpReq._meta, request.http?.req?.headers, deps.caller?.tenant);
  const attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': def.name };
  return inSpanOf(
    parent,
    `tools/call ${def.name}`,
    { ...attributes, 'gen_ai.operation.name': 'execute_tool' },
    async (span) => {
      const started = performance.now();
      const answer = await answered(call, deps);
      const error = answer.errorType ? { 'error.type': answer.errorType } : {};
      if (answer.errorType) span?.setStatus({ code: SpanStatusCode.ERROR }).setAttributes(error);
      const labels = { ...attributes, ...error, ...tenantLabel() };
      instruments().toolCalls.add(1, { ...labels, outcome: OUTCOME[answer.logged] });
      instruments().toolDuration.record((performance.now() - started) / 1000, labels);
      if (answer.source) instruments().answers.add(1, { source: answer.source, ...tenantLabel() });
      return answer.result;
    },
    SpanKind.SERVER,
  );
}

async function answered(call: ToolCall, deps: ToolRunDeps): Promise<Answer> {
  const started = Date.now();
  const progress = progressNotifier(call.request);
  // The call's budget: past it everything below stops, and the call answers a TimeoutError, not a cancel.
  const { signal, end } = callSignal(call.request.mcpReq.signal, deps.config.callTimeoutS * 1000);
  const ctx = toolContextFor(deps, call, signal, progress.report);
  const answering = { def: call.def, started, end };
  let answer: Answer;
  try {
    answer = await answerOf(
      await outcomeOf(call, deps, () => call.def.run(call.args as never, ctx), signal),
      deps,
      answering,
    );
  } catch (error) {
    // Answering can fail too: the same funnel answers that.
    answer = await answerOf({ kind: 'failed', error }, deps, answering);
  } finally {
    progress.stop();
  }
  // The access line: one per call, naming who asked (on a server whose callers authenticate) and how it ended.
  deps.log.info('call', {
    tool: call.def.name,
    outcome: answer.logged,
    ms: Date.now() - started,
    ...(deps.caller ? { caller: deps.caller.id, tenant: deps.caller.tenant } : {}),
  });
  return answer;
}
