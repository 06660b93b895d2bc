import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey, writeKeysFile } from '../../src/auth/api-keys.js';
import { loadConfig } from '../../src/config/config.js';
import { startHttp } from '../../src/main.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { startTelemetry, type Telemetry } from '../../src/runtime/telemetry.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { freePort } from '../helpers/redis-server.js';

let sim: Simulator;
let telemetry: Telemetry;
const dir = mkdtempSync(join(tmpdir(), 'oam-metrics-'));

beforeAll(async () => {
  sim = await startSimulator({ users: 10, rateLimit: false });
  telemetry = await startTelemetry({}, true);
});
afterAll(async () => {
  await telemetry.shutdown();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An --http server with these flags and variables; /metrics fetched from it by 127.0.0.1, as a scraper would. */
async function serving(flags: string[], env: Record<string, string> = {}) {
  const port = await freePort();
  const config = loadConfig(['--http', '--port', String(port), ...flags], {
    ANALYTICS_API_TOKEN: sim.token,
    ANALYTICS_BASE_URL: sim.url,
    ANALYTICS_CACHE_DIR: 'none',
    ANALYTICS_LOG_LEVEL: 'error',
    ...env,
  });
  const runtime = await createRuntime(config);
  Object.assign(process.env, env);
  const server = await startHttp(runtime, undefined, telemetry);
  return {
    port,
    scrape: (headers: Record<string, string> = {}, at = port) => fetch(`http://127.0.0.1:${at}/metrics`, { headers }),
    close: async () => {
      await server.close();
      await runtime.close();
      for (const name of Object.keys(env)) delete process.env[name];
    },
  };
}

describe('/metrics', () => {
  it('answers anyone on a loopback bind, in the Prometheus text format', async () => {
    const s = await serving([]);
    const res = await s.scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await res.text()).toMatch(/^process_memory_usage\{/m);
    await s.close();
  });

  it('asks for the bearer token of --metrics-token-env', async () => {
    const s = await serving(['--metrics-token-env', 'OAM_TEST_METRICS_TOKEN'], {
      OAM_TEST_METRICS_TOKEN: 'scrape-me-9',
    });
    expect((await s.scrape()).status).toBe(401);
    expect((await s.scrape({ authorization: 'Bearer scrape-me-8' })).status).toBe(401);
    expect((await s.scrape({ authorization: 'Bearer scrape-me-9' })).status).toBe(200);
    await s.close();
  });

  it('is off on a bind other than loopback without a token, and says what to give', async () => {
    const keys = join(dir, 'keys.json');
    writeKeysFile(keys, [newApiKey('read', null).entry]);
    const s = await serving(['--host', '0.0.0.0', '--api-keys-file', keys, '--allowed-hosts', 'mcp.example.com']);
    const res = await s.scrape();
    expect([res.status, await res.text()]).toEqual([
      404,
      '/metrics is off on a bind other than loopback: give --metrics-token-env or --metrics-port\n',
    ]);
    await s.close();
  });

  it('moves to its own port with --metrics-port', async () => {
    const port = await freePort();
    const s = await serving(['--metrics-port', String(port)]);
    expect((await s.scrape()).status).toBe(404);
    expect((await s.scrape({}, port)).status).toBe(200);
    await s.close();
    await expect(s.scrape({}, port)).rejects.toThrow();
  });

  it('on a loopback bind, is refused to a request naming another host or origin (a web page rebinding DNS)', async () => {
    const s = await serving([]);
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) =>
        request({ host: '127.0.0.1', port: s.port, path: '/metrics', headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end(),
      );
    expect(await status({})).toBe(200);
    expect(await status({ host: 'evil.example' })).toBe(403);
    expect(await status({ origin: 'http://evil.example' })).toBe(403);
    await s.close();
  });

  it('refuses a --metrics-port that is taken, saying what to give', async () => {
    const port = await freePort();
    await expect(serving(['--port', String(port), '--metrics-port', String(port)])).rejects.toThrow(
      /--metrics-port \d+: the port is taken/,
    );
  });
});
