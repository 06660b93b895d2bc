import type { Config } from '../config/config.js';
import type { AuditSink } from '../privacy/audit.js';
import type { Caller } from '../auth/caller.js';
import type { LazyHistory } from '../history/serving/runtime-history.js';
import type { Logger } from '../logger.js';
import type { OrgDirectory } from '../directory/org-view.js';
import type { LoginCredential } from '../login/login-credential.js';
import type { ConversationSignIn } from '../login/sign-in.js';
import type { Pseudonymizer } from '../privacy/pii.js';
import type { ToolDef } from '../tools/types.js';
import type { AnalyticsClient } from '../upstream/client.js';
import type { DigestPort } from '../upstream/history-port.js';

/** What one MCP server is built from: the runtime's parts and, over authenticated HTTP, who is calling. */
export interface ServerDeps {
  client: AnalyticsClient;
  config: Config;
  log: Logger;
  pii: Pseudonymizer;
  audit: AuditSink;
  /** Credentials to scrub from everything sent to the client (the API token is always included). */
  secrets?: Array<string | undefined>;
  tools?: ToolDef[];
  /** Who is calling, on an HTTP server whose callers authenticate: a read role gets no write tools. */
  caller?: Caller;
  /** Signs confirmation state; the same for every replica with the same upstream token (see createRuntime). */
  confirmKey?: Uint8Array;
  /** The login the upstream requests use, when there is no token: its scopes decide whether writes are offered. */
  login?: LoginCredential;
  /** Offers the sign-in link in the conversation, on clients that take URL elicitation. */
  signIn?: ConversationSignIn;
  /** The history store, opened on first use: anomalies://latest is served from it. */
  history?: LazyHistory;
  /** The history store's digests, read by the insights tools (the runtime's are its history's). */
  digests?: DigestPort;
  /** The organization's teams and cost centers, when a directory is configured. */
  org?: OrgDirectory;
}
