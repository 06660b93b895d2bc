import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pkcePair } from './oauth-flow.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
let child: ChildProcess | undefined;
afterEach(() => child?.kill());

function startStandalone(args: string[]): Promise<{ url: string; output: string }> {
  child = spawn(process.execPath, [CLI, 'simulator', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match && output.includes('Try:')) resolve({ url: match[1]!, output });
    });
    child!.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
}

describe('org-analytics-mcp simulator (standalone, built binary)', () => {
  it('prints its URL and serves with the given tokens, plan and rate-limit switch', async () => {
    const { url } = await startStandalone([
      '--token',
      'T',
      '--read-token',
      'R',
      '--users',
      '40',
      '--plan',
      'usd',
      '--rate-limit',
      'off',
      '--seed',
      's1',
    ]);
    const get = (path: string, token: string) =>
      fetch(new URL(path, url), { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 25; i++) expect((await get('/analytics/v0/dau-count', 'T')).status).toBe(200);
    const overrides = (await (
      await fetch(new URL('/analytics/v0/get-user-budget-overrides', url), {
        method: 'POST',
        headers: { authorization: 'Bearer R' },
      })
    ).json()) as { overrides: Array<{ resource: string }> };
    expect(overrides.overrides.every((o: { resource: string }) => o.resource === 'BUDGET_RESOURCE_USD_COST')).toBe(
      true,
    );
    const write = await fetch(new URL('/analytics/v0/set-user-budget-overrides', url), {
      method: 'POST',
      headers: { authorization: 'Bearer R' },
      body: JSON.stringify({
        overrides: [
          {
            service_account_name: 'ci-pipeline',
            resource: 'BUDGET_RESOURCE_USD_COST',
            period: 'BUDGET_PERIOD_MONTHLY',
            config: { limit: '5' },
          },
        ],
      }),
    });
    expect(write.status).toBe(403);
    expect((await get('/analytics/v0/dau', 'nope')).status).toBe(401);
  });

  it('prints its authorization server and serves sign-ins as --oauth-auto-approve and --access-token-ttl say', async () => {
    const { url, output } = await startStandalone([
      '--users',
      '10',
      '--oauth-auto-approve',
      '--access-token-ttl',
      '120',
    ]);
    expect(output).toContain(`  oauth:      ${url}/oauth/authorize and /token (client id org-analytics-mcp)`);
    const { verifier, challenge } = pkcePair();
    const redirect_uri = 'http://127.0.0.1:4242/callback';
    const query = { response_type: 'code', client_id: 'org-analytics-mcp', redirect_uri, code_challenge: challenge };
    const authorize = new URL(
      `/oauth/authorize?${new URLSearchParams({ ...query, code_challenge_method: 'S256' })}`,
      url,
    );
    const code = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!).searchParams.get(
      'code',
    )!;
    const form = {
      grant_type: 'authorization_code',
      client_id: 'org-analytics-mcp',
      code,
      redirect_uri,
      code_verifier: verifier,
    };
    const answer = await fetch(new URL('/oauth/token', url), { method: 'POST', body: new URLSearchParams(form) });
    expect(await answer.json()).toMatchObject({ token_type: 'Bearer', expires_in: 120, scope: 'read' });
  });

  it('generates and prints a token when none is given, and enforces rate limits by default', async () => {
    const { url, output } = await startStandalone(['--users', '10']);
    const token = /token \(read\+write\): (\S+)/.exec(output)![1]!;
    const statuses = [];
    for (let i = 0; i < 21; i++)
      statuses.push(
        (await fetch(new URL('/analytics/v0/dau', url), { headers: { authorization: `Bearer ${token}` } })).status,
      );
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it.each([
    [['--plan', 'gold'], /--plan takes credits or usd/],
    [['--rate-limit', 'maybe'], /--rate-limit takes on or off/],
    [['--users', 'many'], /--users takes a number/],
    [['--bogus'], /Unknown option '--bogus'/],
  ])('refuses %j with a clear message and exit code 2, as the server does', (args, message) => {
    const run = spawnSync(process.execPath, [CLI, 'simulator', ...args], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/Run org-analytics-mcp simulator --help for the options/);
  });

  it('documents its options in --help', () => {
    const run = spawnSync(process.execPath, [CLI, 'simulator', '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    for (const flag of [
      '--port',
      '--token',
      '--read-token',
      '--users',
      '--plan',
      '--rate-limit',
      '--seed',
      '--retry-after',
      '--time-scale',
      '--oauth-auto-approve',
      '--access-token-ttl',
    ])
      expect(run.stdout).toContain(flag);
  });
});
