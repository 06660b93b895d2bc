import {
  McpServer,
  type RegisteredTool,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { identityDirectory } from '../privacy/identity-directory.js';
import type { LoginCredential } from '../login/login-credential.js';
import { registerViews, viewOfTool } from '../ui/views.js';
import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { redactorOf } from '../privacy/redact.js';
import { registerPrompts } from './resources/prompts.js';
import { registerChangelogResource } from './resources/changelog-resource.js';
import { registerAnomaliesResource } from './resources/anomalies-resource.js';
import { registerAlertsResource } from './resources/alerts-resource.js';
import { answerSchema } from './answer-pending.js';
import { advertisedInput, withCheckedArgs } from './input-validation.js';
import { keepProtoArguments } from './proto-argument.js';
import type { ToolDef } from '../tools/types.js';
import { serverInfo } from './server-info.js';
import { cacheHintsFor, cacheScopeOf } from './cache-hints.js';
import { instructions } from './instructions.js';
import { runTool, type ToolRunDeps } from './run-tool.js';
import { protocolFailure } from './tool-errors.js';
import type { ServerDeps } from './server-deps.js';
import { toolInventory, type ToolInventory } from './tool-inventory.js';

/**
 * Builds the MCP server: the tools its caller may have (see toolInventory), the changelog resource, the views
 * and the prompts, with one error boundary. `onlyTool`: the server answers one tools/call of this tool and
 * nothing else (an HTTP request that is exactly that).
 */
export function createServer(deps: ServerDeps, onlyTool?: string): McpServer {
  const server = new McpServer(serverInfo(), {
    instructions: instructions(deps.client.refreshHour),
    cacheHints: cacheHintsFor(deps.client, cacheScopeOf(deps.caller, deps.login)),
  });
  keepProtoArguments(server);
  const { client, config, log } = deps;
  const directory = identityDirectory(client, deps.pii);
  const redact = redactorOf({ config, pii: deps.pii, secrets: deps.secrets });
  const inventory = toolInventory({ tools: deps.tools, config, caller: deps.caller, login: deps.login }, onlyTool);
  const calls: ToolRunDeps = {
    client,
    digests: deps.digests,
    config,
    pii: deps.pii,
    log,
    audit: deps.audit,
    resolveEmail: (text, signal) => directory.resolve(text, signal),
    confirmKey: deps.confirmKey,
    org: deps.org,
    redact,
    signIn: deps.signIn,
    caller: deps.caller,
  };
  const registered = new Map<string, RegisteredTool>();
  for (const def of inventory.registered) {
    const view = config.noUi ? undefined : viewOfTool(def.name);
    const shown = { title: def.title, description: def.description, ...schemasOf(def), annotations: def.annotations };
    // Arguments are checked inside the handler, so a bad one gets our words through the one error funnel.
    const handler = (args: unknown, request: ServerContext) =>
      runTool({ server, def: withCheckedArgs(def), args, request }, calls);
    // Hosts that render MCP Apps show the answer in its view; others ignore the link and read the same answer.
    registered.set(
      def.name,
      view
        ? registerAppTool(server, def.name, { ...shown, _meta: { ui: { resourceUri: view.uri } } }, handler)
        : server.registerTool(def.name, shown, handler),
    );
  }
  if (deps.login) followScopes(server, deps.login, inventory, registered);
  if (inventory.oneCall) return server;
  if (!config.noUi) registerViews(server, inventory.writable);
  const fail = protocolFailure(log, redact);
  registerChangelogResource(server, { client, redact, fail, callTimeoutS: config.callTimeoutS });
  const history = deps.history;
  if (history)
    registerAnomaliesResource(server, {
      client,
      store: async () => (await history.open())?.source.store,
      redact,
      fail,
      log,
    });
  if (history)
    registerAlertsResource(server, { store: async () => (await history.open())?.source.store, redact, fail });
  registerPrompts(server, inventory.writable, redact, fail, (tool) =>
    inventory.registered.some((def) => def.name === tool),
  );
  return server;
}

/**
 * A login's scopes can change while the server runs: each registered tool is shown while the inventory says
 * so, and a change is announced (tools/list_changed) as a login with other scopes comes into use.
 */
function followScopes(
  server: McpServer,
  login: LoginCredential,
  inventory: ToolInventory,
  tools: Map<string, RegisteredTool>,
): void {
  const apply = () => {
    for (const [name, tool] of tools) {
      const shown = inventory.withheld(name) === undefined;
      if (tool.enabled === shown) continue;
      if (shown) tool.enable();
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

const schemas = new WeakMap<ToolDef, { inputSchema: StandardSchemaWithJSON; outputSchema: StandardSchemaWithJSON }>();
/** A tool's registered schemas, built once: an HTTP server is built per request, and zod compiles a schema on first use. */
function schemasOf(def: ToolDef) {
  let built = schemas.get(def);
  if (!built)
    schemas.set(def, (built = { inputSchema: advertisedInput(def.input), outputSchema: answerSchema(def.output) }));
  return built;
}
