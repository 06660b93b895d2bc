import { reportUnfinishedWrites } from './privacy/audit.js';
import { ConfigError, loadConfig } from './config/config.js';
import type { Caller } from './auth/caller.js';
import type { Logger } from './logger.js';
import { createRuntime, type Runtime } from './runtime/runtime.js';
import type { HttpServing } from './transports/http.js';
import type { Telemetry } from './runtime/telemetry.js';
import { createServer } from './mcp/server.js';
import type { ServerDeps } from './mcp/server-deps.js';
import { toolInventory } from './mcp/tool-inventory.js';
import { isLoopbackHost, nonLoopbackRefusal } from './transports/loopback.js';
import { serveStdio } from './transports/stdio.js';
import { once } from './util/once.js';

/** How long calls in flight may take to finish after SIGTERM: the longest a call is allowed, and a little more. */
const DRAIN_GRACE_MS = 50_000;
/** After shutdown, how long the process may take to end by itself. */
const EXIT_BACKSTOP_MS = 3_000;

export async function runServer(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(argv, env);
  if (config.transport === 'http' && !isLoopbackHost(config.host) && !config.authIssuer && !config.apiKeysFile)
    throw new ConfigError(nonLoopbackRefusal(config.host));
  // A login is one person's: every caller of a shared server would act as them, and could replace it.
  if (config.login && config.transport === 'http' && !isLoopbackHost(config.host))
    throw new ConfigError(
      `a login (ANALYTICS_AUTH_URL and ANALYTICS_CLIENT_ID without a token) serves one person: use stdio or a loopback --host, or give a shared server a service-account token (ANALYTICS_API_TOKEN).`,
    );
  // First: the trace context is carried from the first call on; the SDK loads only when something is exported.
  const { startTelemetry } = await import('./runtime/telemetry.js');
  const { servesMetrics } = await import('./transports/metrics-http.js');
  const telemetry = await startTelemetry(env, config.transport === 'http' && servesMetrics(config));
  // Checked before anything starts, so that a bad list is a usage error, not a failure at 02:10.
  const warmItems = config.warm ? (await import('./warm/warm-list.js')).warmListOf(config.warmList) : undefined;
  // So is the alerts file: its problems at start, whether or not this server syncs.
  if (config.alertsFile) (await import('./alerts/destinations.js')).loadDestinations(config.alertsFile, env);
  const tenants = config.tenantsFile
    ? await (await import('./runtime/tenants.js')).tenantRuntimes(config, env)
    : undefined;
  const runtime = tenants ? tenants.runtimes[0]! : await createRuntime(config, { env });
  telemetry.watch({ history: runtime.history, refreshHour: config.refreshHour });
  // With a history store the warm-up is the sync (the tour fills the demo's store itself); it opens the store
  // now, where a server that only answers opens it on its first call.
  const history = config.sync || config.warm ? await runtime.history?.open() : undefined;
  const syncing = history !== undefined;
  if (config.sync && !history) runtime.log.warn('--sync needs a history store (--history): not syncing');
  const sync = syncing ? new (await import('./warm/sync-schedule.js')).SyncScheduler() : undefined;
  if (sync && history) {
    const { DEMO_SYNC } = await import('./history/sync/sync-run.js');
    void sync.start({ ...runtime, history, config: config.demo ? { ...config, ...DEMO_SYNC } : config });
  }
  const warm =
    warmItems && !syncing
      ? new (await import('./warm/warm-schedule.js')).WarmScheduler({ items: warmItems })
      : undefined;
  warm?.start(runtime);
  // Each runtime closes once, and the Redis connection the tenants share after them.
  const close = once(async () => {
    await warm?.stop();
    await sync?.stop();
    await telemetry.shutdown();
    await (tenants ?? runtime).close();
  });
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
    const serving = await startHttp(runtime, tenants?.byName, telemetry);
    const { url } = serving;
    // SIGTERM (a deploy, a scale-down): new calls get 503, calls in flight finish, then everything closes.
    process.once('SIGTERM', () => {
      runtime.log.info('SIGTERM: finishing calls in flight, refusing new ones');
      void serving
        .drain(DRAIN_GRACE_MS)
        .then(close)
        .then(
          () => exitOnceIdle(runtime.log),
          (error: unknown) => {
            runtime.log.error('shutdown failed', { error: error instanceof Error ? error.message : String(error) });
            process.exit(1);
          },
        );
    });
    runtime.log.info('serving MCP over Streamable HTTP', { url, demo: config.demo });
    process.stderr.write(`org-analytics-mcp: MCP over Streamable HTTP at ${url}\n`);
    return;
  }
  serveStdio(() => createServer(runtime), runtime.log, close);
  runtime.log.info('serving MCP on stdio', {
    demo: config.demo,
    readOnly: config.readOnly,
    pii: config.pii,
    simulator: runtime.simulator?.url,
  });
}

/**
 * With everything closed nothing holds the event loop, and the process ends by itself (exit code 0). A
 * handle left open would keep it alive: it is named in the log, and the process exits all the same.
 */
function exitOnceIdle(log: Logger): void {
  setTimeout(() => {
    log.warn('something was still open after shutdown; exiting anyway', {
      open: process.getActiveResourcesInfo(),
    });
    process.exit(0);
  }, EXIT_BACKSTOP_MS).unref();
}

/**
 * Serves MCP over Streamable HTTP: each request gets the server its caller may see. With tenants, each
 * caller is served from its tenant's runtime: its own upstream, token, cache keys, limits and PII key.
 */
export async function startHttp(
  runtime: Runtime,
  tenants?: Map<string, Runtime>,
  telemetry?: Pick<Telemetry, 'metrics'>,
): Promise<HttpServing> {
  const { serveHttp } = await import('./transports/http.js');
  const { metricsServing } = await import('./transports/metrics-http.js');
  const metrics = telemetry?.metrics && (await metricsServing(runtime.config, process.env, telemetry.metrics));
  if (metrics?.ownPort !== undefined)
    runtime.log.info('serving /metrics on its own port', {
      url: `http://${runtime.config.host}:${metrics.ownPort}/metrics`,
    });
  else if (runtime.config.transport === 'http' && !runtime.config.noMetrics && !metrics)
    runtime.log.warn('/metrics is off: on a bind other than loopback it needs --metrics-token-env or --metrics-port');
  const { ANOMALIES_URI, onAnomalies } = await import('./insights/anomaly-feed.js');
  const runtimeOf = (caller: Caller | undefined) => (tenants && caller ? tenants.get(caller.tenant ?? '') : runtime);
  const { scimFor } = await import('./scim/scim-runtimes.js');
  const scim = scimFor(tenants ?? new Map([['', runtime]]), process.env);
  const serving = await serveHttp(
    (caller, onlyTool) => createServer(serverDepsFor(runtimeOf(caller)!, caller), onlyTool),
    runtime.config,
    runtime.log,
    {
      inventory: (caller) => toolInventory(serverDepsFor(runtimeOf(caller) ?? runtime, caller)),
      readiness: () => ({ baseUrl: runtime.client.baseUrl, redis: runtime.client.redis }),
      updates: (notify) => {
        const stops = [...(tenants?.values() ?? [runtime])].map((r) =>
          onAnomalies(r.client, () => notify(ANOMALIES_URI)),
        );
        return () => stops.forEach((stop) => stop());
      },
      admit: (caller) => {
        if (!tenants || runtimeOf(caller)) return undefined;
        return caller.tenant === null
          ? `${caller.id} belongs to no tenant: give its token a ${runtime.config.tenantClaim} claim, or its API key a --tenant.`
          : `tenant '${caller.tenant}' is not served here (the tenants file names ${[...tenants.keys()].join(', ')}).`;
      },
      ...(scim ? { scim } : {}),
      ...(metrics ? { metrics: metrics.onHttpPort } : {}),
    },
  );
  if (!scim && !metrics) return serving;
  const others = () => (scim?.close(), metrics?.close());
  return {
    ...serving,
    close: () => Promise.all([others(), serving.close()]).then(() => {}),
    drain: (graceMs) => Promise.all([others(), serving.drain(graceMs)]).then(() => {}),
  };
}

/** What one caller's server is built from: its role decides its tools (see toolInventory), and audit lines name it. */
function serverDepsFor(runtime: Runtime, caller: Caller | undefined): ServerDeps {
  if (!caller) return runtime;
  return {
    ...runtime,
    caller,
    audit: (event) => runtime.audit({ ...event, caller: caller.id }),
  };
}
