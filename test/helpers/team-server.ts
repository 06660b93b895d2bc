import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { startHttp } from '../../src/main.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import type { HttpServing } from '../../src/transports/http.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { startIssuer, type Issuer } from './oidc.js';
import { freePort } from './redis-server.js';

/** A server whose callers authenticate against a real OpenID provider, in process, with the simulator behind it. */
export interface TeamServer {
  sim: Simulator;
  issuer: Issuer;
  runtime: Runtime;
  server: HttpServing;
  /** The URL clients use for /mcp: the audience of their tokens. */
  publicUrl: string;
  /** A scratch directory; its audit.jsonl is the server's audit log. */
  dir: string;
  close(): Promise<void>;
}

/** `args(dir)`: more flags, given the scratch directory (for a keys file, say). */
export async function startTeamServer(
  sim: SimulatorOptions,
  args: (dir: string) => string[] = () => [],
): Promise<TeamServer> {
  const simulator = await startSimulator(sim);
  const issuer = await startIssuer();
  const dir = mkdtempSync(join(tmpdir(), 'team-server-'));
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}/mcp`;
  const config = loadConfig(
    ['--http', '--port', String(port), '--public-url', publicUrl, '--auth-issuer', issuer.url, ...args(dir)],
    {
      ANALYTICS_API_TOKEN: simulator.token,
      ANALYTICS_BASE_URL: simulator.url,
      ANALYTICS_CACHE_DIR: 'none',
      ANALYTICS_LOG_LEVEL: 'error',
      ANALYTICS_AUDIT_LOG: join(dir, 'audit.jsonl'),
    },
  );
  const runtime = await createRuntime(config);
  const server = await startHttp(runtime);
  return {
    sim: simulator,
    issuer,
    runtime,
    server,
    publicUrl,
    dir,
    async close() {
      await server.close();
      await runtime.close();
      await issuer.close();
      await simulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
