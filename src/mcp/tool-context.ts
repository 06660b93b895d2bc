import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { Config } from '../config/config.js';
import type { Logger } from '../logger.js';
import type { OrgDirectory } from '../directory/org-view.js';
import type { AuditSink } from '../privacy/audit.js';
import type { Pseudonymizer } from '../privacy/pii.js';
import type { ListingStatus } from '../upstream/listing/background-listings.js';
import type { AnalyticsClient } from '../upstream/client.js';
import { NO_DIGESTS, type DigestPort } from '../upstream/history-port.js';
import type { ToolContext, ToolDef } from '../tools/types.js';
import { confirmationFor } from './confirmation.js';

/** What a tool's context is built from: the server's parts a tool may use, and its key for confirmations. */
export interface ToolContextParts {
  client: AnalyticsClient;
  /** The history store's digests, when there is a store. */
  digests?: DigestPort;
  config: Config;
  pii: Pseudonymizer;
  log: Logger;
  audit: AuditSink;
  /** The identity directory's lookup: an email or a pseudonym to the real email. */
  resolveEmail: (text: string, signal: AbortSignal) => Promise<string>;
  /** Signs confirmation state (see ServerDeps.confirmKey). */
  confirmKey?: Uint8Array;
  org?: OrgDirectory;
}

/** One tools/call as the SDK hands it over: the server, the tool, its arguments and the request. */
export interface ToolCall {
  server: McpServer;
  def: ToolDef;
  args: unknown;
  request: ServerContext;
}

/** The context one call of a tool runs in: within the call's budget (`signal`), reporting its progress. */
export function toolContextFor(
  parts: ToolContextParts,
  call: ToolCall,
  signal: AbortSignal,
  progress: (status: ListingStatus) => void,
): ToolContext {
  return {
    client: parts.client,
    digests: parts.digests ?? NO_DIGESTS,
    config: parts.config,
    pii: parts.pii,
    log: parts.log,
    signal,
    progress,
    resolveEmail: (text) => parts.resolveEmail(text, signal),
    audit: parts.audit,
    ...(parts.org ? { org: parts.org } : {}),
    confirmation: confirmationFor(call.server, call.request, call.def, parts.config, parts.confirmKey),
  };
}
