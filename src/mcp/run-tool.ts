import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import type { Caller } from '../auth/caller.js';
import type { ConversationSignIn } from '../login/sign-in.js';
import type { Redactor } from '../privacy/redact.js';
import { toolErrorMessage } from '../tools/failure-text.js';
import { LoginRequiredError } from '../upstream/errors.js';
import { AnswerPending, answerWithinMs } from '../upstream/listing/list-all.js';
import { callSignal } from '../upstream/transport/deadline.js';
import { pendingAnswer } from './answer-pending.js';
import { askToConfirm, ConfirmationNeeded } from './confirmation.js';
import { progressNotifier } from './progress-notifier.js';
import { offerSignIn } from './sign-in-offer.js';
import { toolContextFor, type ToolCall, type ToolContextParts } from './tool-context.js';
import { logFailure } from './tool-errors.js';

/** What running a tool takes from the server: its context's parts, and what answering and the access line need. */
export interface ToolRunDeps extends ToolContextParts {
  redact: Redactor;
  /** Offers the sign-in link when a call needs a login and there is none. */
  signIn?: ConversationSignIn;
  /** Named on the access line, on a server whose callers authenticate. */
  caller?: Pick<Caller, 'id' | 'tenant'>;
}

type SignInAnswer = Exclude<Awaited<ReturnType<typeof offerSignIn>>, 'retry' | undefined>;

/** How a call can end, each with what its answer is made of. */
interface Outcomes {
  /** The tool answered (its own isError may still say it failed). */
  answered: { out: Record<string, unknown> };
  /** Its listing was not complete within the answer budget: the pending answer. */
  not_complete: { pending: AnswerPending };
  /** It writes, and asks the user first. */
  confirming: { needed: ConfirmationNeeded };
  /** It needs a login: the sign-in link was offered. */
  signing_in: { result: SignInAnswer };
  /** Anything else thrown, answered in the funnel's words. */
  failed: { error: unknown };
}
type Outcome<K extends keyof Outcomes = keyof Outcomes> = { [P in K]: { kind: P } & Outcomes[P] }[K];

/** What answering one call knows: the call, the server's parts, when it started and how to cancel its work. */
interface Answering {
  call: ToolCall;
  deps: ToolRunDeps;
  started: number;
  /** Aborts the call's signal: a failed call's queued upstream requests are dropped. */
  end: () => void;
}

/** A call's result, and how it ended in the access line's words. */
interface Answer {
  result: CallToolResult | InputRequiredResult;
  logged: 'ok' | 'error' | 'not_complete' | 'confirming' | 'signing_in';
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

/** The table of outcomes: each outcome's result. */
const ANSWERS: { [K in keyof Outcomes]: (outcome: Outcome<K>, a: Answering) => Answer | Promise<Answer> } = {
  answered({ out }, { call, deps, started }) {
    const shown = deps.redact.value(out);
    deps.log.debug('tool done', { tool: call.def.name, ms: Date.now() - started });
    const words = deps.redact.text(call.def.text(shown));
    const isError = call.def.isError?.(shown) ?? false;
    return {
      logged: isError ? 'error' : 'ok',
      result: {
        content: text(words),
        // A tool's own `complete` wins: a budget write says there whether every chunk was applied.
        structuredContent: { complete: true, ...shown },
        ...(isError ? { isError: true } : {}),
      },
    };
  },
  not_complete({ pending }, { call, deps, started }) {
    const answer = pendingAnswer(call.def.name, pending.status, answerWithinMs(deps.config));
    deps.log.info('answered not complete yet', { tool: call.def.name, ms: Date.now() - started, ...answer.structured });
    return { logged: 'not_complete', result: { content: text(answer.text), structuredContent: answer.structured } };
  },
  async confirming({ needed }, { call, deps }) {
    deps.log.info('asking the user to confirm', { tool: call.def.name });
    // Minting the request state can fail too: runTool answers that through the funnel, not the SDK.
    return {
      logged: 'confirming',
      result: await askToConfirm(deps.redact.text(needed.message), needed.digest, deps.confirmKey),
    };
  },
  signing_in: ({ result }) => ({ logged: 'signing_in', result }),
  failed({ error }, { call, deps, started, end }) {
    end();
    logFailure(deps.log, 'tool failed', error, { tool: call.def.name, ms: Date.now() - started });
    return { logged: 'error', result: { content: text(deps.redact.text(toolErrorMessage(error))), isError: true } };
  },
};

const answerOf = <K extends keyof Outcomes>(outcome: Outcome<K>, a: Answering) => ANSWERS[outcome.kind](outcome, a);

/** What a thrown error means for the call. */
function outcomeOfError(error: unknown): Outcome {
  if (error instanceof AnswerPending) return { kind: 'not_complete', pending: error };
  if (error instanceof ConfirmationNeeded) return { kind: 'confirming', needed: error };
  return { kind: 'failed', error };
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

/** One tools/call, through the one error funnel: the answer, a pending answer, a confirmation or a sign-in link. */
export async function runTool(call: ToolCall, deps: ToolRunDeps) {
  const started = Date.now();
  const progress = progressNotifier(call.request);
  // The call's budget: past it everything below stops, and the call answers a TimeoutError, not a cancel.
  const { signal, end } = callSignal(call.request.mcpReq.signal, deps.config.callTimeoutS * 1000);
  const ctx = toolContextFor(deps, call, signal, progress.report);
  const a: Answering = { call, deps, started, end };
  let answer: Answer;
  try {
    answer = await answerOf(await outcomeOf(call, deps, () => call.def.run(call.args as never, ctx), signal), a);
  } catch (error) {
    // Answering can fail too (a tool's text, the confirmation's state): the same funnel answers it.
    answer = await answerOf({ kind: 'failed', error }, a);
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
  return answer.result;
}
