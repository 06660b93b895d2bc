import { createHmac } from 'node:crypto';
import { createAuditSink, type AuditSink } from '../privacy/audit.js';
import { ConfigError, type Config } from '../config/config.js';
import type { ConversationSignIn } from '../login/sign-in.js';
import type { LoginCredential } from '../login/login-credential.js';
import { createLogger, secretScrubber, type Logger } from '../logger.js';
import { Pseudonymizer } from '../privacy/pii.js';
import type { Simulator } from '../simulator/index.js';
import type { LazyHistory } from '../history/serving/runtime-history.js';
import type { DigestPort } from '../upstream/history-port.js';
import { resolveCacheDir } from '../upstream/cache/cache-dir.js';
import { AnalyticsClient } from '../upstream/client.js';
import type { SharedRedis } from '../upstream/limits/redis-connection.js';
import { once } from '../util/once.js';
import { demoDirectory } from './demo-directory.js';
import { existsSync } from 'node:fs';
import type { DirectoryState } from '../directory/directory-state.js';
import type { OrgDirectory } from '../directory/org-view.js';

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
  /** The history store --history names, opened on first use. */
  history?: LazyHistory;
  /** The history store's digests, opened with it (see LazyHistory.digests). */
  digests?: DigestPort;
  /** The organization's directory (--directory, or SCIM over --http), as the tools read it. */
  org?: OrgDirectory;
  /** Where the directory's versions come in: the file's, or SCIM's through `replace`. */
  orgState?: DirectoryState;
  close(): Promise<void>;
}

/** The demo's embedded simulator does not rate limit: the client need not pace itself for it. */
const DEMO_LIMITS = {
  general: { perMinute: 60_000, burst: 1_000 },
  'credit-usage': { perMinute: 60_000, burst: 1_000 },
  'cost-analytics': { perMinute: 60_000, burst: 1_000 },
};

/** The embedded simulator demo mode serves against, with a fresh token. */
async function demoUpstream(users: number): Promise<{ token: string; baseUrl: string; simulator: Simulator }> {
  // Loaded only here: a server against a real API never needs the simulator.
  const { startDemoSimulator } = await import('../simulator/index.js');
  // Local and synthetic: it does not rate limit, so that the demo fills its history store in seconds.
  const simulator = await startDemoSimulator(users, false);
  return { token: simulator.token, baseUrl: simulator.url, simulator };
}

/** Builds everything the server needs from config; in demo mode, starts the embedded simulator first. */
export async function createRuntime(
  config: Config,
  /** `redis`: a connection shared with other runtimes (tenants'); its owner closes it, this runtime does not. */
  options: { simulatorUsers?: number; env?: NodeJS.ProcessEnv; redis?: SharedRedis } = {},
): Promise<Runtime> {
  if (!config.demo && !config.token && !config.login)
    throw new ConfigError('with --tenants-file, give this command one tenant: its --api-token and --base-url.');
  const { token, baseUrl, simulator } = config.demo
    ? await demoUpstream(options.simulatorUsers ?? 800)
    : { token: config.token, baseUrl: config.baseUrl, simulator: undefined };
  // The demo's organization chart is its directory, unless one is given.
  const demoOrg = simulator && !config.directory ? await demoDirectory(simulator) : undefined;
  if (demoOrg) config = { ...config, directory: demoOrg.file };
  const secrets: Array<string | undefined> = [token, config.piiKey];
  // Loaded only here: a server on a token never needs the login code.
  const login =
    token === undefined && config.login
      ? await (
          await import('../login/login-runtime.js')
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
  const ownRedis = !options.redis && config.redisUrl ? await sharedRedis(config.redisUrl, log) : undefined;
  const redis = options.redis ?? ownRedis;
  const cacheDir = resolveCacheDir(config.cacheDir);
  const client = new AnalyticsClient({
    baseUrl,
    siteUrl: config.siteUrl ?? simulator?.url,
    token: login?.credential ?? secret,
    // The demo's token is new each run, so its answers could never be found again: no disk cache for it.
    cacheDir: config.demo ? undefined : cacheDir,
    diskCacheMaxBytes: config.cacheMaxMb * 1024 * 1024,
    maxResponseBytes: config.maxResponseMb * 1024 * 1024,
    refreshHour: config.refreshHour,
    limits: simulator ? DEMO_LIMITS : undefined,
    redis,
    log,
  });
  // Loaded only here: a server with --history none never needs the store's code. The store itself opens on
  // first use, so that a server starts without paying for it.
  const history =
    config.history.kind === 'none'
      ? undefined
      : (await import('../history/serving/runtime-history.js')).configuredHistory(
          client,
          { history: config.history, cacheDir, demo: config.demo },
          log,
        );
  const orgState = config.directory || config.scimTokenEnv ? await directoryState(config, log) : undefined;
  const org =
    orgState &&
    (await import('../history/serving/org-directory.js')).orgDirectory(orgState, history, {
      minGroupSize: config.minGroupSize,
      log,
    });
  return {
    config,
    client,
    log,
    history,
    digests: history?.digests,
    org,
    orgState,
    pii,
    audit: createAuditSink(pii, config.auditLog),
    secrets,
    confirmKey: createHmac('sha256', secret).update('org-analytics-mcp confirmation state v1').digest(),
    simulator,
    login: login?.credential,
    signIn: login?.signIn,
    close: once(async () => {
      orgState?.close();
      // What the directory was is kept before the store closes (a server closed at once, still recording it).
      await org?.settled?.();
      await client.close();
      await history?.close();
      await login?.close();
      await ownRedis?.close();
      await simulator?.close();
      demoOrg?.remove();
    }),
  };
}

/** The directory in force: the --directory file, read now and again when it changes (SCIM fills it over --http). */
async function directoryState(config: Config, log: Logger): Promise<DirectoryState> {
  const { DirectoryState } = await import('../directory/directory-state.js');
  const state = new DirectoryState(log);
  const file = config.directory;
  if (!file) return state;
  if (!existsSync(file)) throw new ConfigError(`--directory ${file}: no such file; give the path of the directory CSV`);
  try {
    state.load(file);
  } catch (error) {
    // Said on stderr by load; answers say it too, and a good version of the file is picked up when saved.
    if (!state.problem) throw error;
  }
  state.watch(file);
  return state;
}

/** The one Redis connection of this process; an outage is logged once when it starts and once when it ends. */
export async function sharedRedis(url: string, log: Logger): Promise<SharedRedis> {
  // Loaded only here: a server without --redis-url never needs the Redis client.
  const { connectRedis } = await import('../upstream/limits/redis-connection.js');
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
