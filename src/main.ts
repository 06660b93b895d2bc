import { randomBytes } from 'node:crypto';
import { createAuditSink, type AuditSink } from './audit.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, secretScrubber, type Logger } from './logger.js';
import { Pseudonymizer } from './pii.js';
import { createServer } from './server.js';
import { startSimulator, type Simulator } from './simulator/index.js';
import { isLoopbackHost, nonLoopbackRefusal } from './transports/loopback.js';
import { serveStdio } from './transports/stdio.js';
import { AnalyticsClient } from './upstream/client.js';

export interface Runtime {
  config: Config;
  client: AnalyticsClient;
  log: Logger;
  pii: Pseudonymizer;
  audit: AuditSink;
  /** Credentials that must never leave the process: scrubbed from answers as from logs. */
  secrets: Array<string | undefined>;
  simulator?: Simulator;
  close(): Promise<void>;
}

/** Builds everything the server needs from config; in demo mode, starts the embedded simulator first. */
export async function createRuntime(config: Config, options: { simulatorUsers?: number } = {}): Promise<Runtime> {
  let simulator: Simulator | undefined;
  let token = config.token;
  let baseUrl = config.baseUrl;
  if (config.demo) {
    token = `demo-${randomBytes(12).toString('hex')}`;
    simulator = await startSimulator({ users: options.simulatorUsers ?? 800, token, seed: 'northwind' });
    baseUrl = simulator.url;
  }
  const pii = new Pseudonymizer(config.pii, config.piiKey ?? token!);
  const scrub = secretScrubber([token, config.piiKey]);
  const log = createLogger(config.logLevel, (text) => pii.text(scrub(text)));
  const client = new AnalyticsClient({ baseUrl: baseUrl!, siteUrl: config.siteUrl ?? (simulator ? simulator.url : undefined), token: token! });
  return {
    config,
    client,
    log,
    pii,
    audit: createAuditSink(pii, config.auditLog),
    secrets: [token, config.piiKey],
    simulator,
    close: async () => {
      await client.close();
      await simulator?.close();
    },
  };
}

export async function runServer(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(argv, env);
  if (config.transport === 'http' && !isLoopbackHost(config.host)) throw new ConfigError(nonLoopbackRefusal(config.host));
  const runtime = await createRuntime(config);
  if (config.transport === 'http') {
    const { serveHttp } = await import('./transports/http.js');
    const { url } = await serveHttp(() => createServer(runtime), config, runtime.log);
    runtime.log.info('serving MCP over Streamable HTTP', { url, demo: config.demo });
    process.stderr.write(`org-analytics-mcp: MCP over Streamable HTTP at ${url}\n`);
    return;
  }
  serveStdio(() => createServer(runtime), runtime.log, runtime.close);
  runtime.log.info('serving MCP on stdio', { demo: config.demo, readOnly: config.readOnly, pii: config.pii, simulator: runtime.simulator?.url });
}
