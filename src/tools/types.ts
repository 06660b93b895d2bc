import type { z } from 'zod';
import type { AuditSink } from '../privacy/audit.js';
import type { OrgDirectory } from '../directory/org-view.js';
import type { Config } from '../config/config.js';
import type { Toolset } from '../config/options-tools.js';
import type { Logger } from '../logger.js';
import type { Pseudonymizer } from '../privacy/pii.js';
import type { AnalyticsClient } from '../upstream/client.js';
import type { DigestPort } from '../upstream/history-port.js';
import type { ListingStatus } from '../upstream/listing/background-listings.js';
import type { Listing } from '../upstream/endpoint.js';
import type { PageShape } from '../upstream/listing/pagination.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a tool handler may use. Nothing of MCP leaks in: the server adapts these. */
export interface ToolContext {
  client: AnalyticsClient;
  /** The history store's digests (none without a store): the insights read people's sums from them. */
  digests: DigestPort;
  config: Config;
  pii: Pseudonymizer;
  log: Logger;
  signal: AbortSignal;
  /** Reports where a listing stands; the server forwards it as notifications/progress when the client asked. */
  progress: (status: ListingStatus) => void;
  /** Resolves a user-supplied email or pseudonym to the real email. */
  resolveEmail: (text: string) => Promise<string>;
  /**
   * How a write is confirmed; undefined when it is not (--confirm-writes never, or a stdio client without
   * forms under auto). `answer`: the user's answer to a confirmation this call asked for; 'missing' (not
   * asked yet) and 'stale' (asked about a different change) mean: `ask`, which ends the call with the question
   * (`digest` names exactly what is approved). Without `answer`, a confirmation is required but this
   * connection cannot ask for one (`why`), so do not write.
   */
  confirmation?:
    | {
        answer(digest: string): Promise<'accepted' | 'declined' | 'cancelled' | 'missing' | 'stale'>;
        ask(message: string, digest: string): never;
      }
    | { answer?: undefined; why: string };
  /** Records budget changes that were sent upstream. */
  audit: AuditSink;
  /** The organization's teams and cost centers; undefined when no directory is configured (--directory, SCIM). */
  org?: OrgDirectory;
}

type AnyListing = Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>;

/** The listing a tool's arguments ask for, and what they ask of it (ListArgs of that listing). */
export interface ListingCall {
  listing: AnyListing;
  args: object;
}

/**
 * What a tool asks the upstream for, declared: its run asks exactly this, and the warm-up (the history
 * sync next) fetches it ahead for the declared argument sets, under the keys the tool's calls look up.
 */
export interface ToolRequests<A = never> {
  /** The listing the arguments ask for; in a user filter, names resolved already (warm-up sets have none). */
  of(args: A): ListingCall;
  /** Argument sets worth fetching ahead, by warm-up kind: `--warm-list` names each with a range, e.g. cost-by-user:last_30_days. */
  warm: Record<string, Record<string, unknown>>;
}

/** A tool as data: its public contract and a handler that returns the structured answer. */
export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  /** The toolset it belongs to (the folder it lives in): `--toolsets` offers the tools of the sets it names. Not sent in tools/list. */
  toolset: Toolset;
  title: string;
  description: string;
  input: I;
  output: O;
  /** `readOnlyHint: false` is how a tool says it writes upstream state, and so is hidden from read-only callers. */
  annotations: ToolAnnotations;
  /** The upstream requests it makes, declared (see ToolRequests). */
  requests?: ToolRequests<z.output<I>>;
  run(args: z.output<I>, ctx: ToolContext): Promise<z.output<O>>;
  /** The compact text a model reads, derived from the structured answer. */
  text(out: z.output<O>): string;
  /** Whether this answer reports a failure (it still carries its structured content). */
  isError?(out: z.output<O>): boolean;
}
