import { expect } from 'vitest';
import { Client, StreamableHTTPClientTransport, type ClientCapabilities } from '@modelcontextprotocol/client';
import { InMemoryTransport, createMcpHandler } from '@modelcontextprotocol/server';
import { OUTCOME_EVENT, createAuditSink, type AuditRecord } from '../../src/privacy/audit.js';
import { configSchema, type Config } from '../../src/config/config.js';
import { DirectoryState } from '../../src/directory/directory-state.js';
import { orgDirectory } from '../../src/history/serving/org-directory.js';
import { createLogger } from '../../src/logger.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { createServer } from '../../src/mcp/server.js';
import type { ServerDeps } from '../../src/mcp/server-deps.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';
import type { AnalyticsClient, ClientOptions } from '../../src/upstream/client.js';
import type { DigestPort } from '../../src/upstream/history-port.js';
import { clientFor } from './client.js';
import { NOW } from './sim.js';

export interface Harness {
  sim: Simulator;
  mcp: Client;
  upstream: AnalyticsClient;
  deps: ServerDeps;
  logs: string[];
  /** Outcome lines of the audit, parsed: one per change sent. */
  audit: AuditLine[];
  /** Every audit line, parsed, in order: intents and outcomes. */
  auditLines: AuditLine[];
  call(name: string, args?: Record<string, unknown>, options?: Parameters<Client['callTool']>[1]): Promise<ToolAnswer>;
  close(): Promise<void>;
}

export type AuditLine = AuditRecord & { time: string; event: string; chunk: string; [key: string]: unknown };

export interface ToolAnswer {
  isError: boolean;
  text: string;
  structured: any;
}

export interface HarnessOptions {
  config?: Partial<Config> & Record<string, unknown>;
  sim?: SimulatorOptions;
  /** A running simulator to use instead of starting one; close() leaves it running. */
  simulator?: Simulator;
  capabilities?: ClientCapabilities;
  /**
   * legacy: in-memory 2025-era connection; modern: 2026-07-28 through the HTTP handler, in process;
   * legacy-http: a 2025-era client served statelessly by the HTTP handler, as --http does.
   */
  era?: 'legacy' | 'modern' | 'legacy-http';
  setup?: (client: Client) => void;
  /** The upstream client's options, e.g. `limits` to pace it like the real API. */
  client?: Partial<ClientOptions>;
  /** The history store's digests the tools read (see storedHarness). */
  digests?: DigestPort;
}

/** A real MCP client talking to createServer() in process, with the simulator behind it over real HTTP. */
export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const sim =
    options.simulator ??
    (await startSimulator({
      users: 300,
      now: NOW,
      rateLimit: false,
      token: 'rw',
      readToken: 'ro',
      ...options.sim,
    }));
  const config = configSchema.parse({
    token: sim.token,
    baseUrl: sim.url,
    logLevel: 'debug',
    // Every tool, so that a test may call any; test/tools/toolsets.test.ts serves the default set.
    toolsets: 'all',
    ...options.config,
  });
  const logs: string[] = [];
  const pii = new Pseudonymizer(config.pii, config.piiKey ?? config.token!);
  const log = createLogger(
    config.logLevel,
    (t) => pii.text(t),
    (line) => logs.push(line),
  );
  const upstream = clientFor(sim, { token: config.token!, refreshHour: config.refreshHour, ...options.client });
  const audit: AuditLine[] = [];
  const auditLines: AuditLine[] = [];
  const auditSink = createAuditSink(pii, config.auditLog, (text) => {
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditLine);
    auditLines.push(...lines);
    audit.push(...lines.filter((l) => l.event === OUTCOME_EVENT));
  });
  const deps: ServerDeps = { client: upstream, config, log, pii, audit: auditSink, digests: options.digests };
  // config.directory: the directory file, read as the runtime reads it (today's teams: the harness has no store).
  const orgState = config.directory ? new DirectoryState(log) : undefined;
  if (orgState) {
    orgState.load(config.directory!);
    deps.org = orgDirectory(orgState, undefined, { minGroupSize: config.minGroupSize, log });
  }
  const mcp = new Client(
    { name: 'harness', version: '1.0.0' },
    {
      capabilities: options.capabilities ?? {},
      versionNegotiation: { mode: options.era === 'modern' ? 'auto' : 'legacy' },
    },
  );
  options.setup?.(mcp);
  let closeServer: () => Promise<void>;
  if (options.era === 'modern' || options.era === 'legacy-http') {
    const handler = createMcpHandler(() => createServer(deps));
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    closeServer = () => handler.close();
  } else {
    const server = createServer(deps);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await mcp.connect(clientSide);
    closeServer = () => server.close();
  }
  return {
    sim,
    mcp,
    upstream,
    deps,
    logs,
    audit,
    auditLines,
    async call(name, args = {}, callOptions) {
      const result = await mcp.callTool({ name, arguments: args }, callOptions);
      const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
      return { isError: result.isError === true, text, structured: result.structuredContent };
    },
    async close() {
      await mcp.close();
      await closeServer();
      await upstream.close();
      orgState?.close();
      if (!options.simulator) await sim.close();
    },
  };
}

/** Reads the simulator directly over HTTP: the ground truth the tools' numbers are checked against. */
export async function truth(
  sim: Simulator,
  path: string,
  query: Record<string, string> = {},
  body?: unknown,
): Promise<any> {
  const url = new URL(`/analytics/v0/${path}`, sim.url);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${sim.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** Every page of a listing, straight from the simulator. */
export async function truthAll(
  sim: Simulator,
  path: string,
  key: string,
  query: Record<string, string> = {},
): Promise<any[]> {
  const out: any[] = [];
  let cursor = '';
  do {
    const page = await truth(sim, path, { ...query, ...(cursor ? { cursor } : {}) });
    out.push(...page[key]);
    cursor = page.pagination.has_more ? page.pagination.next_cursor : '';
  } while (cursor);
  return out;
}

/** The JSON-RPC error a request failed with (a request that succeeds fails the test). */
export const failure = (request: Promise<unknown>) =>
  request.then(
    () => expect.unreachable('the request succeeded'),
    (e: unknown) => e as { code: number; message: string },
  );
