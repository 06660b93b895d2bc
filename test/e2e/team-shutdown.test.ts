import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey, writeKeysFile } from '../../src/auth/api-keys.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { REDIS_CLIENT_NAME } from '../../src/upstream/redis-connection.js';
import { startHttpBinary, type HttpBinary } from '../helpers/http-binary.js';
import { startIssuer, type Issuer } from '../helpers/oidc.js';
import { freePort, startRedisServer, stopRedisServer } from '../helpers/redis-server.js';

let acme: Simulator;
let globex: Simulator;
let issuer: Issuer;
let redisServer: ChildProcess;
let redisUrl: string;
let dir: string;
let served: HttpBinary;
const keys: Record<string, string> = {};

beforeAll(async () => {
  acme = await startSimulator({ users: 40, seed: 'acme', rateLimit: false, token: 'acme-shutdown-token' });
  globex = await startSimulator({ users: 60, seed: 'globex', rateLimit: false, token: 'globex-shutdown-token' });
  issuer = await startIssuer();
  // A Redis of its own, so that every connection it counts is this server's.
  const redisPort = await freePort();
  redisServer = await startRedisServer(redisPort);
  redisUrl = `redis://127.0.0.1:${redisPort}`;
  dir = mkdtempSync(join(tmpdir(), 'team-shutdown-'));
  // The README's team example: two organizations, plus another name for the first (the same runtime).
  const tenantsFile = join(dir, 'tenants.json');
  writeFileSync(
    tenantsFile,
    JSON.stringify({
      acme: { base_url: acme.url, token_env: 'ACME_API_TOKEN' },
      'acme-eu': { base_url: acme.url, token_env: 'ACME_API_TOKEN' },
      globex: { base_url: globex.url, token_env: 'GLOBEX_API_TOKEN', billing_plan: 'usd' },
    }),
  );
  const keysFile = join(dir, 'keys.json');
  const entries = [];
  for (const tenant of ['acme', 'acme-eu', 'globex']) {
    const { key, entry } = newApiKey('read', tenant);
    keys[tenant] = key;
    entries.push(entry);
  }
  writeKeysFile(keysFile, entries);
  const port = await freePort();
  served = await startHttpBinary(
    [
      '--http',
      '--port',
      String(port),
      '--public-url',
      `http://127.0.0.1:${port}/mcp`,
      '--auth-issuer',
      issuer.url,
      '--api-keys-file',
      keysFile,
      '--tenants-file',
      tenantsFile,
      '--cache-dir',
      'none',
    ],
    {
      PATH: process.env.PATH ?? '',
      ACME_API_TOKEN: acme.token,
      GLOBEX_API_TOKEN: globex.token,
      ANALYTICS_REDIS_URL: redisUrl,
    },
  );
});
afterAll(async () => {
  served?.child.kill('SIGKILL');
  await issuer?.close();
  await acme?.close();
  await globex?.close();
  if (redisServer) await stopRedisServer(redisServer);
  rmSync(dir, { recursive: true, force: true });
});

async function ask(key: string): Promise<number> {
  const res = await fetch(served.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_active_user_counts', arguments: { range: 'last_7_days' } },
    }),
  });
  await res.text();
  return res.status;
}

/** The connections this server holds on the Redis, by the name it gives them. */
async function serverConnections(): Promise<number> {
  const probe = createClient({ url: redisUrl });
  await probe.connect();
  try {
    const list = String(await probe.sendCommand(['CLIENT', 'LIST']));
    return list.split('\n').filter((line) => line.includes(` name=${REDIS_CLIENT_NAME} `)).length;
  } finally {
    probe.destroy();
  }
}

describe('the team example, from start to SIGTERM', () => {
  it('serves every tenant over one Redis connection', async () => {
    for (const tenant of ['acme', 'acme-eu', 'globex']) expect(await ask(keys[tenant]!)).toBe(200);
    // Both organizations' runtimes used Redis (their caches and rate limits), through one connection.
    expect(acme.requests().length).toBeGreaterThan(0);
    expect(globex.requests().length).toBeGreaterThan(0);
    expect(await serverConnections()).toBe(1);
  });

  it('on SIGTERM closes each runtime once and the Redis connection, and ends by itself with exit code 0', async () => {
    const started = Date.now();
    served.child.kill('SIGTERM');
    const code = await served.exited;
    expect(code).toBe(0);
    // Nothing was left open: the process ended without its backstop (which waits 3 s and says so).
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(served.stderr()).not.toMatch(/Maximum call stack|Exception|still open after shutdown|shutdown failed/);
    expect(await serverConnections()).toBe(0);
  }, 15_000);
});
