import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/node';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { callerOf } from '../auth/authenticator.js';
import type { Caller } from '../auth/caller.js';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config.js';
import type { Logger } from '../logger.js';
import type { ToolInventory } from '../mcp/tool-inventory.js';
import { Health, type ReadinessTarget } from './health.js';
import { HttpAuth, authenticates, readJson } from './http-auth.js';
import { isLoopbackHost, loopbackHostnames, nonLoopbackRefusal } from './loopback.js';
import { mcpHandlers, type NodeHandler, type ResourceUpdates, type ServerFactory } from './mcp-handlers.js';

const MCP_PATH = '/mcp';
const METADATA_PATHS = ['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${MCP_PATH}`];

export interface HttpOptions {
  /**
   * The tools a caller may see and call (toolInventory): a call its role refuses is answered 403
   * insufficient_scope, and a request that is one call of a known tool is served by a server of that tool.
   */
  inventory?: (caller: Caller) => Pick<ToolInventory, 'withheld'>;
  /** What /readyz checks. */
  readiness?: () => ReadinessTarget;
  /** Why an authenticated caller may not be served (an unknown tenant, say), or undefined to serve it. */
  admit?: (caller: Caller) => string | undefined;
  /** Resources that change, announced to the clients that listen for them. */
  updates?: ResourceUpdates;
  /** /metrics, guarded by its own rule (metrics-http.ts): a loopback bind, or its token. */
  metrics?: (req: IncomingMessage, res: ServerResponse) => void;
  /** SCIM provisioning under /scim/v2, with its own token (not an MCP caller's). */
  scim?: { handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> };
}

export interface HttpServing {
  url: string;
  close: () => Promise<void>;
  /** Refuses new requests (503), lets those in flight finish (up to `graceMs`), then closes. */
  drain: (graceMs: number) => Promise<void>;
}

/**
 * Streamable HTTP at exactly /mcp, for both protocol eras (2025 clients are served statelessly). A fresh
 * server per request shares the one upstream client, its cache and its rate limits. Host and Origin are
 * checked on every request against the names clients use, which stops DNS-rebinding pages; a bind other
 * than loopback needs callers to authenticate (an authorization server's JWTs, or API keys).
 */
export async function serveHttp(
  factory: ServerFactory,
  config: Config,
  log: Logger,
  options: HttpOptions = {},
): Promise<HttpServing> {
  const names = allowedNames(config);
  const inventory = options.inventory ?? (() => ({ withheld: () => 'unknown' as const }));
  const auth = authenticates(config) ? new HttpAuth(config, inventory, options.admit) : undefined;
  const readiness = options.readiness ?? (() => ({ baseUrl: config.baseUrl, redis: undefined }));
  const handlers = mcpHandlers(factory, inventory, log, options.updates);
  const validHost = hostHeaderValidation(names.hosts);
  const validOrigin = names.origins ? exactOrigin(names.origins) : originValidation(names.hosts);
  const health = new Health(readiness);
  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const http = createHttpServer((req, res) => {
    const path = pathOf(req.url);
    // Probes come from load balancers by address, so they skip the Host check; they show nothing private.
    if (path === '/healthz') return health.live(res, draining);
    if (path === '/readyz') return void health.ready(res, draining);
    // Scrapers too come by address; /metrics has its own guard and shows no one's data. On a loopback bind it
    // needs no token, so there the Host and Origin are checked as for /mcp: no web page may read it (DNS rebinding).
    if (path === '/metrics' && options.metrics) {
      if (isLoopbackHost(config.host) && (!validHost(req, res) || !validOrigin(req, res))) return;
      return options.metrics(req, res);
    }
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    if (draining) {
      res.writeHead(503, { 'content-type': 'text/plain', connection: 'close' }).end('shutting down\n');
      return;
    }
    inFlight++;
    res.once('close', () => {
      if (--inFlight === 0) idle?.();
    });
    if (options.scim && path?.startsWith('/scim/')) {
      void options.scim.handle(req, res).then((served) => {
        if (!served) res.writeHead(404, { 'content-type': 'text/plain' }).end('SCIM is served at /scim/v2\n');
      });
      return;
    }
    if (auth && path !== undefined && METADATA_PATHS.includes(path)) {
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      res.end(JSON.stringify(auth.metadata()));
      return;
    }
    if (path !== MCP_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`MCP is served at ${MCP_PATH}\n`);
      return;
    }
    if (!auth) {
      void handlers.node(req, res);
      return;
    }
    void serveAuthenticated(auth, handlers.nodeFor, req, res).catch((error: unknown) => {
      log.warn('http request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const close = async () => {
    await handlers.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  };
  return {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}${MCP_PATH}`,
    close,
    drain: async (graceMs) => {
      draining = true;
      http.close();
      if (inFlight > 0)
        await new Promise<void>((resolve) => {
          idle = resolve;
          setTimeout(resolve, graceMs).unref();
        });
      await close();
    },
  };
}

async function serveAuthenticated(
  auth: HttpAuth,
  nodeFor: (caller: Caller, body: unknown) => NodeHandler,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const info = await auth.authenticate(req, res);
  if (!info) return;
  (req as IncomingMessage & { auth?: AuthInfo }).auth = info;
  const caller = callerOf(info)!;
  if (req.method !== 'POST') return nodeFor(caller, undefined)(req, res);
  const { json } = await readJson(req);
  if (json === undefined) {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: the body is not JSON' },
        id: null,
      }),
    );
    return;
  }
  if (!(await auth.allows(caller, json, res))) return;
  await nodeFor(caller, json)(req, res, json);
}

/** Host names (without ports) and, when configured, exact origins that requests may carry. */
function allowedNames(config: Config): { hosts: string[]; origins: string[] | undefined } {
  const loopback = isLoopbackHost(config.host);
  if (!loopback && !authenticates(config)) throw new ConfigError(nonLoopbackRefusal(config.host));
  if (config.authIssuer && !config.publicUrl)
    throw new ConfigError(
      '--auth-issuer needs --public-url: the URL clients use for /mcp is the audience its tokens must name.',
    );
  const pub = config.publicUrl ? new URL(config.publicUrl) : undefined;
  const configured = config.allowedHosts?.map(hostnameOf) ?? (pub ? [hostnameOf(pub.host)] : []);
  if (!loopback && configured.length === 0)
    throw new ConfigError(
      `serving on ${config.host} needs the names clients reach it by, to check the Host header: give --public-url or --allowed-hosts.`,
    );
  const hosts = [...new Set([...configured, ...(loopback ? loopbackHostnames(config.host) : [])])];
  const origins = config.allowedOrigins ?? (pub ? [pub.origin] : undefined);
  return { hosts, origins: origins && loopback ? [...origins, ...loopbackOrigins(hosts)] : origins };
}

/** "mcp.example.com:8443" → "mcp.example.com"; "[::1]:3000" → "[::1]". */
function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  return h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d+$/, '');
}

function loopbackOrigins(hosts: string[]): string[] {
  return hosts.flatMap((h) => [`http://${h}`, `https://${h}`]);
}

/** Accepts requests without an Origin (non-browser clients) and those whose origin is listed, port included for a listed port. */
function exactOrigin(origins: string[]) {
  const allowed = new Set(origins.map((o) => o.trim().replace(/\/+$/, '').toLowerCase()));
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    let normalized: string;
    try {
      const url = new URL(origin);
      normalized = url.origin.toLowerCase();
    } catch {
      normalized = '';
    }
    if (allowed.has(normalized) || allowed.has(normalized.replace(/:\d+$/, ''))) return true;
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `Origin ${origin} is not allowed` }, id: null }),
    );
    return false;
  };
}

function pathOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}
