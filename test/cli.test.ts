import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 15_000,
    env: { PATH: process.env.PATH ?? '', ...env },
  });

describe('both commands exit 2 for a command line or environment they cannot run with', () => {
  it.each([
    [['--demo', '--port', 'abc'], {}, /--port takes a number, got 'abc'/, 'org-analytics-mcp --help'],
    [
      ['--demo'],
      { ANALYTICS_LOG_LEVEL: 'loud' },
      /ANALYTICS_LOG_LEVEL takes error, warn, info or debug/,
      'org-analytics-mcp --help',
    ],
    [['--demo'], { ANALYTICS_HTTP: 'perhaps' }, /ANALYTICS_HTTP takes on or off/, 'org-analytics-mcp --help'],
    [['frobnicate'], {}, /Unknown command 'frobnicate'/, 'org-analytics-mcp --help'],
    [['simulator', '--time-scale', 'fast'], {}, /--time-scale takes a number/, 'org-analytics-mcp simulator --help'],
    [
      ['simulator'],
      { ANALYTICS_SIM_PLAN: 'gold' },
      /ANALYTICS_SIM_PLAN takes credits or usd/,
      'org-analytics-mcp simulator --help',
    ],
  ])('%j with %j', (args, env, message, help) => {
    const result = run(args, env);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain(`Run ${help} for the options.`);
  });
});

describe('both commands exit 1 for a failure while running', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it.each([
    ['the simulator', ['simulator', '--port']],
    ['the server (after starting its embedded simulator)', ['--demo', '--http', '--port']],
  ])('%s on a port already in use', (_, args) => {
    const result = run([...args, String(port)]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/EADDRINUSE/);
  });
});
