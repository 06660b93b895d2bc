import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BillingPlan } from '../contract/enums.js';
import { SimClock } from './clock.js';
import { CONTROL_PREFIX, applySettings, handleControl, settingsUpdateSchema, type SettingsUpdate } from './control.js';
import { Faults, type FaultSpec } from './http/faults.js';
import { handleApi, type SimulatorContext } from './http/http-handler.js';
import { createOAuthContext } from './oauth/context.js';
import { handleOAuth, isOAuthPath } from './oauth/router.js';
import { simulatorOptionsSchema, type SimulatorOptions } from './options.js';
import { RateLimiter } from './http/rate-limit.js';
import { RequestLog, type RequestLogEntry } from './http/request-log.js';
import { SimState, stateOf } from './state.js';

export type { SimulatorOptions } from './options.js';
export type { FaultSpec } from './http/faults.js';
export type { RequestLogEntry } from './http/request-log.js';

/** Test switches of the authorization server, as an administrator or the test harness would flip them. */
export interface SimulatorOAuth {
  /** As an administrator revoking the app: every OAuth code, access and refresh token stops working. */
  revokeAll(): void;
  /** On: {authUrl}/authorize skips the consent page and redirects with a code at once. */
  setAutoApprove(on: boolean): void;
  /** Lifetime of the access tokens issued from now on (whole seconds, at least 1). */
  setAccessTokenTtl(seconds: number): void;
}

export interface Simulator {
  /** Base URL of the analytics API, which also serves the changelog at /api/changelog. */
  url: string;
  token: string;
  readToken: string | undefined;
  /** Base URL of the OAuth authorization server: {authUrl}/authorize and {authUrl}/token. */
  authUrl: string;
  /** The one client registered with the authorization server (a public client: no secret). */
  oauthClientId: string;
  oauth: SimulatorOAuth;
  state: SimState;
  clock: SimClock;
  injectFault(spec: FaultSpec): void;
  clearFaults(): void;
  requests(): RequestLogEntry[];
  clearRequests(): void;
  /**
   * Same switches as POST /__sim/settings: now, frozen, advance_ms, plan, rate_limit, time_scale, retry_after,
   * changelog_unavailable, oauth_auto_approve, oauth_access_token_ttl_s, oauth_revoke_all.
   */
  configure(update: SettingsUpdate): void;
  setPlan(plan: BillingPlan): void;
  close(): Promise<void>;
}

/** Starts the upstream simulator on a loopback port (0 picks a free one). */
export async function startSimulator(input: SimulatorOptions = {}): Promise<Simulator> {
  const options = simulatorOptionsSchema.parse(input);
  const state = stateOf(options);
  const clock = state.clock;
  const staticTokens = new Map<string, 'read' | 'write'>([[options.token, 'write']]);
  if (options.readToken) staticTokens.set(options.readToken, 'read');
  const sim: SimulatorContext = {
    state,
    limiter: new RateLimiter({ enabled: options.rateLimit, timeScale: options.timeScale }),
    faults: new Faults(),
    log: new RequestLog(),
    staticTokens,
    oauth: createOAuthContext(options.oauth, clock, state.org),
    retryAfter: options.retryAfter,
    hanging: new Set(),
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator.local');
    const work = url.pathname.startsWith(CONTROL_PREFIX)
      ? handleControl(sim, req, res, url)
      : isOAuthPath(sim, url.pathname)
        ? handleOAuth(sim, req, res, url)
        : handleApi(sim, req, res, url);
    work.catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const stopWarming = options.warm ? state.warm(90) : () => {};
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const url = `http://${host}:${address.port}`;
  return {
    url,
    token: options.token,
    readToken: options.readToken,
    authUrl: `${url}${options.oauth.path}`,
    oauthClientId: options.oauth.clientId,
    oauth: {
      revokeAll: () => applySettings(sim, { oauth_revoke_all: true }),
      setAutoApprove: (on) => applySettings(sim, { oauth_auto_approve: on }),
      setAccessTokenTtl: (seconds) =>
        applySettings(sim, settingsUpdateSchema.parse({ oauth_access_token_ttl_s: seconds })),
    },
    state,
    clock,
    injectFault: (spec) => sim.faults.inject(spec),
    clearFaults: () => sim.faults.clear(),
    requests: () => sim.log.list(),
    clearRequests: () => sim.log.clear(),
    configure: (update) => applySettings(sim, update),
    setPlan: (plan) => applySettings(sim, { plan }),
    close: async () => {
      stopWarming();
      for (const res of sim.hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The demo organization (seed northwind) on a fresh random token: --demo, the tour and `login --demo`. */
export function startDemoSimulator(users = 800, rateLimit = true): Promise<Simulator> {
  return startSimulator({ users, token: `demo-${randomBytes(12).toString('hex')}`, seed: 'northwind', rateLimit });
}
