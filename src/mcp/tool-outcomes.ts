import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import type { Config } from '../config/config.js';
import type { Logger } from '../logger.js';
import type { Redactor } from '../privacy/redact.js';
import { toolErrorMessage } from '../tools/failure-text.js';
import type { ToolDef } from '../tools/types.js';
import { AnswerPending, answerWithinMs } from '../upstream/listing/list-all.js';
import { pendingAnswer } from './answer-pending.js';
import { askToConfirm, ConfirmationNeeded } from './confirmation.js';
import type { offerSignIn } from './sign-in-offer.js';
import { logFailure } from './tool-errors.js';
import { errorType } from '../telemetry/spans.js';

type SignInAnswer = Exclude<Awaited<ReturnType<typeof offerSignIn>>, 'retry' | undefined>;

/** How a tools/call can end, each with what its answer is made of. */
interface Outcomes {
  /** The tool answered (its own isError may still say it failed). */
  answered: { out: Record<string, unknown> };
  /** Its listing was not complete within the answer budget. */
  not_complete: { pending: AnswerPending };
  /** It writes, and asks the user first. */
  confirming: { needed: ConfirmationNeeded };
  /** It needs a login: the sign-in link was offered. */
  signing_in: { result: SignInAnswer };
  /** Anything else thrown: the one funnel answers it in its words. */
  failed: { error: unknown };
}
export type Outcome<K extends keyof Outcomes = keyof Outcomes> = { [P in K]: { kind: P } & Outcomes[P] }[K];

/** What answering takes from the server. */
export interface AnswerDeps {
  redact: Redactor;
  log: Logger;
  /** The answer budget, named in a pending answer. */
  config: Pick<Config, 'answerWithinS' | 'callTimeoutS'>;
  /** Signs confirmation state (see ServerDeps.confirmKey). */
  confirmKey?: Uint8Array;
}

/** The call being answered: its tool, when it started and how to stop its work. */
export interface Answering {
  def: ToolDef;
  started: number;
  /** Aborts the call's signal: a failed call's queued upstream requests are dropped. */
  end: () => void;
}

/** A call's result, and how it ended in the access line's words. */
export interface Answer {
  result: CallToolResult | InputRequiredResult;
  logged: 'ok' | 'error' | 'not_complete' | 'confirming' | 'signing_in';
  /** A failure's kind (an error's, or tool_error for a tool's own isError answer), for the metrics and the span. */
  errorType?: string;
  /** Where an answer's figures came from, as its freshness says. */
  source?: string;
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

/** The table of outcomes: each one's result. */
const ANSWERS: {
  [K in keyof Outcomes]: (o: Outcome<K>, deps: AnswerDeps, call: Answering) => Answer | Promise<Answer>;
} = {
  answered({ out }, deps, { def, started }) {
    const shown = deps.redact.value(out);
    deps.log.debug('tool done', { tool: def.name, ms: Date.now() - started });
    const words = deps.redact.text(def.text(shown));
    const isError = def.isError?.(shown) ?? false;
    const { source } = (shown.freshness ?? {}) as { source?: unknown };
    return {
      logged: isError ? 'error' : 'ok',
      ...(isError ? { errorType: 'tool_error' } : {}),
      ...(typeof source === 'string' ? { source } : {}),
      result: {
        content: text(words),
        // A tool's own `complete` wins: a budget write says there whether every chunk was applied.
        structuredContent: { complete: true, ...shown },
        ...(isError ? { isError: true } : {}),
      },
    };
  },
  not_complete({ pending }, deps, { def, started }) {
    const answer = pendingAnswer(def.name, pending.status, answerWithinMs(deps.config));
    deps.log.info('answered not complete yet', { tool: def.name, ms: Date.now() - started, ...answer.structured });
    return { logged: 'not_complete', result: { content: text(answer.text), structuredContent: answer.structured } };
  },
  async confirming({ needed }, deps, { def }) {
    deps.log.info('asking the user to confirm', { tool: def.name });
    const result = await askToConfirm(deps.redact.text(needed.message), needed.digest, deps.confirmKey);
    return { logged: 'confirming', result };
  },
  signing_in: ({ result }) => ({ logged: 'signing_in', result }),
  failed({ error }, deps, { def, started, end }) {
    end();
    logFailure(deps.log, 'tool failed', error, { tool: def.name, ms: Date.now() - started });
    const result = { content: text(deps.redact.text(toolErrorMessage(error))), isError: true };
    return { logged: 'error', errorType: errorType(error), result };
  },
};

/** The answer to a call that ended so. It may throw (a tool's text, minting the confirmation state): answer that as failed. */
export const answerOf = <K extends keyof Outcomes>(outcome: Outcome<K>, deps: AnswerDeps, call: Answering) =>
  ANSWERS[outcome.kind](outcome, deps, call);

/** What a thrown error means for the call. */
export function outcomeOfError(error: unknown): Outcome {
  if (error instanceof AnswerPending) return { kind: 'not_complete', pending: error };
  if (error instanceof ConfirmationNeeded) return { kind: 'confirming', needed: error };
  return { kind: 'failed', error };
}
