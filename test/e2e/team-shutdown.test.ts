import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { REDIS_CLIENT_NAME } from '../../src/upstream/limits/redis-connection.js';
import { startHttpBinary, type HttpBinary } from '../helpers/http-binary.js';
import { startIssuer, type Issuer } from '../helpers/oidc.js';
import { freePort, startRedisServer, stopRedisServer } from '../helpers/redis-server.js';
import { askAs, writeTeamFiles } from '../helpers/tenants.js';

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
  // The README's team example: two organizations, one of them under two names (the same runtime).
  const files = writeTeamFiles(dir, acme, globex, ['acme', 'acme-eu', 'globex']);
  Object.assign(keys, files.keys);
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
      files.keysFile,
      '--tenants-file',
      files.tenantsFile,
      '--cache-dir',
      'none',
    ],
    {
      PATH: process.env.PATH ?? '',
      ...files.env,
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
    for (const tenant of ['acme', 'acme-eu', 'globex'])
      expect((await askAs(served.url, keys[tenant]!, { range: 'last_7_days' })).status).toBe(200);
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
