import { createHmac, randomBytes } from 'node:crypto';
import { createAuditSink, reportUnfinishedWrites, type AuditSink } from './audit.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, secretScrubber, type Logger } from './logger.js';
import { Pseudonymizer } from './pii.js';
import type { Caller } from './auth/caller.js';
import type { HttpServing } from './transports/http.js';
import { createServer, type ServerDeps } from './server.js';
import { WRITE_TOOLS } from './tools/index.js';
import type { Simulator } from './simulator/index.js';
import type { LoginCredential } from './login/login-credential.js';
import type { ConversationSignIn } from './login/sign-in.js';
import { isLoopbackHost, nonLoopbackRefusal } from './transports/loopback.js';
import { serveStdio } from './transports/stdio.js';
import { resolveCacheDir } from './upstream/cache-dir.js';
import { AnalyticsClient } from './upstream/client.js';
import type { SharedRedis } from './upstream/redis-connection.js';

/** How long calls in flight may take to finish after SIGTERM: the longest a call is allowed, and a little more. */
const DRAIN_GRACE_MS = 50_000;

export interface Runtime {
  config: Config;
  client: AnalyticsClient;
  log: Logger;
  pii: Pseudonymizer;
  audit: AuditSink;
  /** Credentials that must never leave the process: scrubbed from answers as from logs. */
  secrets: Array<string | undefined>;
  /** Derived from the upstream token: replicas of one organization accept each other's confirmations. */
  confirmKey: Uint8Array;
  simulator?: Simulator;
  /** The login the upstream requests use, when the server runs on one rather than a token. */
  login?: LoginCredential;
  signIn?: ConversationSignIn;
  close(): Promise<void>;
}

/** The embedded simulator demo mode serves against, with a fresh token. */
async function demoUpstream(users: number): Promise<{ token: string; baseUrl: string; simulator: Simulator }> {
  const token = `demo-${randomBytes(12).toString('hex')}`;
  // Loaded only here: a server against a real API never needs the simulator.
  const { startSimulator } = await import('./simulator/index.js');
  const simulator = await startSimulator({ users, token, seed: 'northwind' });
  return { token, baseUrl: simulator.url, simulator };
}

/** Builds everything the server needs from config; in demo mode, starts the embedded simulator first. */
export async function createRuntime(
  config: Config,
  options: { simulatorUsers?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<Runtime> {
  if (!config.demo && !config.token && !config.login)
    throw new ConfigError('with --tenants-file, give this command one tenant: its --api-token and --base-url.');
  const { token, baseUrl, simulator } = config.demo
    ? await demoUpstream(options.simulatorUsers ?? 800)
    : { token: config.token, baseUrl: config.baseUrl, simulator: undefined };
  const secrets: Array<string | undefined> = [token, config.piiKey];
  // Loaded only here: a server on a token never needs the login code.
  const login =
    token === undefined && config.login
      ? await (
          await import('./login/login-runtime.js')
        ).loginRuntime(config.login, config.credentialStore, secrets, options.env ?? process.env)
      : undefined;
  // A login's tokens change; the pseudonyms and confirmations must not, so they key on the user's local key.
  const secret = token ?? login!.key;
  // With tenants, one --pii-key must still give each organization its own pseudonyms.
  const piiKey =
    config.piiKey && config.tenantsFile
      ? createHmac('sha256', config.piiKey).update(secret).digest('hex')
      : config.piiKey;
  const pii = new Pseudonymizer(config.pii, piiKey ?? secret);
  const scrub = secretScrubber(secrets);
  const log = createLogger(config.logLevel, (text) => pii.text(scrub(text)));
  const redis = config.redisUrl ? await sharedRedis(config.redisUrl, log) : undefined;
  const client = new AnalyticsClient({
    baseUrl,
    siteUrl: config.siteUrl ?? simulator?.url,
    token: login?.credential ?? secret,
    // The demo's token is new each run, so its answers could never be found again: no disk cache for it.
    cacheDir: config.demo ? undefined : resolveCacheDir(config.cacheDir),
    diskCacheMaxBytes: config.cacheMaxMb * 1024 * 1024,
    redis,
    log,
  });
  return {
    config,
    client,
    log,
    pii,
    audit: createAuditSink(pii, config.auditLog),
    secrets,
    confirmKey: createHmac('sha256', secret).update('org-analytics-mcp confirmation state v1').digest(),
    simulator,
    login: login?.credential,
    signIn: login?.signIn,
    close: async () => {
      await client.close();
      await login?.close();
      await redis?.close();
      await simulator?.close();
    },
  };
}

/** The one Redis connection of this process; an outage is logged once when it starts and once when it ends. */
async function sharedRedis(url: string, log: Logger): Promise<SharedRedis> {
  // Loaded only here: a server without --redis-url never needs the Redis client.
  const { connectRedis } = await import('./upstream/redis-connection.js');
  let down = false;
  return connectRedis(url, {
    onError: (error) => {
      if (down) return;
      down = true;
      log.warn('Redis is unreachable: answering from the local cache, within local rate limits, until it is back', {
        error: error.message,
      });
    },
    onReady: () => {
      if (!down) return;
      down = false;
      log.info('Redis is back: the cache and the rate limits are shared again');
    },
  });
}

export async function runServer(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(argv, env);
  if (config.transport === 'http' && !isLoopbackHost(config.host) && !config.authIssuer && !config.apiKeysFile)
    throw new ConfigError(nonLoopbackRefusal(config.host));
  // Checked before anything starts, so that a bad list is a usage error, not a failure at 02:10.
  const warmItems = config.warm ? (await import('./warm-list.js')).warmListOf(config.warmList) : undefined;
  const tenants = config.tenantsFile ? await tenantRuntimes(config, env) : undefined;
  const runtime = tenants ? [...tenants.values()][0]! : await createRuntime(config, { env });
  if (tenants) {
    const all = new Set(tenants.values());
    runtime.close = async () => {
      for (const r of all) await r.close();
    };
  }
  if (warmItems) {
    const { WarmScheduler } = await import('./warm-schedule.js');
    const warm = new WarmScheduler({ items: warmItems });
    warm.start(runtime);
    const close = runtime.close;
    runtime.close = async () => {
      await warm.stop();
      await close();
    };
  }
  // In the background, so that a long audit log never delays serving.
  if (config.auditLog) {
    const path = config.auditLog;
    void reportUnfinishedWrites(path).catch((error: unknown) =>
      runtime.log.warn('could not check the audit log for unfinished writes', {
        path,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }
  if (config.transport === 'http') {
    const serving = await startHttp(runtime, tenants);
    const { url } = serving;
    // SIGTERM (a deploy, a scale-down): new calls get 503, calls in flight finish, then the process exits.
    process.once('SIGTERM', () => {
      runtime.log.info('SIGTERM: finishing calls in flight, refusing new ones');
      void serving
        .drain(DRAIN_GRACE_MS)
        .then(() => runtime.close())
        .finally(() => process.exit(0));
    });
    runtime.log.info('serving MCP over Streamable HTTP', { url, demo: config.demo });
    process.stderr.write(`org-analytics-mcp: MCP over Streamable HTTP at ${url}\n`);
    return;
  }
  serveStdio(() => createServer(runtime), runtime.log, runtime.close);
  runtime.log.info('serving MCP on stdio', {
    demo: config.demo,
    readOnly: config.readOnly,
    pii: config.pii,
    simulator: runtime.simulator?.url,
  });
}

/**
 * Serves MCP over Streamable HTTP: each request gets the server its caller may see. With tenants, each
 * caller is served from its tenant's runtime: its own upstream, token, cache keys, limits and PII key.
 */
export async function startHttp(runtime: Runtime, tenants?: Map<string, Runtime>): Promise<HttpServing> {
  const { serveHttp } = await import('./transports/http.js');
  const runtimeOf = (caller: Caller | undefined) => (tenants && caller ? tenants.get(caller.tenant ?? '') : runtime);
  return serveHttp(
    (caller, onlyTool) => createServer(serverDepsFor(runtimeOf(caller)!, caller), onlyTool),
    runtime.config,
    runtime.log,
    {
      writeTools: WRITE_TOOLS,
      readiness: () => ({ baseUrl: runtime.client.baseUrl, redis: runtime.client.redis }),
      admit: (caller) => {
        if (!tenants || runtimeOf(caller)) return undefined;
        return caller.tenant === null
          ? `${caller.id} belongs to no tenant: give its token a ${runtime.config.tenantClaim} claim, or its API key a --tenant.`
          : `tenant '${caller.tenant}' is not served here (the tenants file names ${[...tenants.keys()].join(', ')}).`;
      },
    },
  );
}

/** What one caller's server is built from: a read-only caller gets the read-only server, and audit lines name the caller. */
function serverDepsFor(runtime: Runtime, caller: Caller | undefined): ServerDeps {
  if (!caller) return runtime;
  return {
    ...runtime,
    caller,
    config: caller.role === 'read' ? { ...runtime.config, readOnly: true } : runtime.config,
    audit: (event) => runtime.audit({ ...event, caller: caller.id }),
  };
}

/** One runtime per organization: tenants that share an upstream and token are the same organization, and share one. */
export async function tenantRuntimes(config: Config, env: NodeJS.ProcessEnv): Promise<Map<string, Runtime>> {
  const { tenantConfigs } = await import('./tenants.js');
  const byUpstream = new Map<string, Runtime>();
  const tenants = new Map<string, Runtime>();
  for (const [name, tenant] of tenantConfigs(config, env)) {
    const key = `${tenant.baseUrl}|${tenant.token}`;
    let runtime = byUpstream.get(key);
    if (!runtime) byUpstream.set(key, (runtime = await createRuntime(tenant)));
    tenants.set(name, runtime);
  }
  return tenants;
}
