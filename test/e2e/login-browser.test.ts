import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoginStore } from '../../src/login/login-store.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { launchChromium, withBrowserTimeouts } from '../helpers/browser.js';
import { accountOf, configHome } from '../helpers/login.js';

withBrowserTimeouts();

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

let sim: Simulator;
let browser: Browser;
let home: ReturnType<typeof configHome>;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startSimulator({ users: 150, rateLimit: false, warm: false });
  browser = await launchChromium();
  home = configHome();
  env = {
    PATH: process.env.PATH ?? '',
    XDG_CONFIG_HOME: home.dir,
    ANALYTICS_AUTH_URL: sim.authUrl,
    ANALYTICS_CLIENT_ID: sim.oauthClientId,
    ANALYTICS_CREDENTIAL_STORE: 'file',
  };
});
afterAll(async () => {
  await browser?.close();
  await sim?.close();
  home?.remove();
});

/** Runs the built binary's `login`; `url()` resolves with the sign-in address it prints on stderr. */
function runLogin(args: string[], withEnv: Record<string, string> = env) {
  const child = spawn(process.execPath, [CLI, 'login', '--no-browser', ...args], { env: withEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const url = new Promise<string>((resolve) =>
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const found = /https?:\/\/\S+\/authorize\?\S+/.exec(stderr);
      if (found) resolve(found[0]);
    }),
  );
  const exit = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { url, exit, out: () => ({ stdout, stderr }) };
}

async function approveInBrowser(url: string, scopes: RegExp): Promise<string> {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    expect(await page.textContent('body')).toMatch(scopes);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(/127\.0\.0\.1:\d+\/callback/);
    return (await page.textContent('h1')) ?? '';
  } finally {
    await page.close();
  }
}

async function serverOverStdio() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI],
    env: { ...env, ANALYTICS_BASE_URL: sim.url, ANALYTICS_LOG_LEVEL: 'debug' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'e2e-login', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('signing in with a browser, then serving on the login', () => {
  it('login opens the consent page, Chromium approves, and a tool call then succeeds on a read-only login', async () => {
    const login = runLogin([]);
    expect(await approveInBrowser(await login.url, /Read organization analytics/)).toBe('Signed in');
    expect(await login.exit).toBe(0);
    expect(login.out().stdout).toMatch(/Signed in to .* as \S+@\S+ with the read scope\./);

    const stored = (await new LoginStore(accountOf(sim), 'file', { XDG_CONFIG_HOME: home.dir }).read())!.login;
    for (const secret of [stored.access_token, stored.refresh_token!])
      expect(login.out().stdout + login.out().stderr).not.toContain(secret);
    const { client, stderr } = await serverOverStdio();
    try {
      const { tools } = await client.listTools();
      // A read-only login hides the write tool, as --read-only does.
      expect(tools.map((t) => t.name)).not.toContain('set_budget_overrides');
      const r = await client.callTool({ name: 'get_active_user_counts', arguments: { range: 'last_7_days' } });
      expect(r.isError).toBeFalsy();
      const answer = JSON.stringify(r);
      for (const secret of [stored.access_token, stored.refresh_token!]) {
        expect(answer).not.toContain(secret);
        expect(stderr()).not.toContain(secret);
      }
    } finally {
      await client.close();
    }
    const reads = sim.requests().filter((q) => q.path.startsWith('/analytics/'));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((q) => q.auth === 'read')).toBe(true);
  });

  it('a read and write login shows the write tool; auth status shows scopes and expiry, never a token', async () => {
    const login = runLogin(['--scopes', 'read,write']);
    expect(await approveInBrowser(await login.url, /Create, update or clear budget overrides/)).toBe('Signed in');
    expect(await login.exit).toBe(0);
    const { client } = await serverOverStdio();
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('set_budget_overrides');
    } finally {
      await client.close();
    }
    const status = spawn(process.execPath, [CLI, 'auth', 'status'], { env });
    let out = '';
    status.stdout.on('data', (d: Buffer) => (out += d.toString()));
    expect(await new Promise((r) => status.on('exit', r))).toBe(0);
    expect(out).toMatch(/with the read and write scopes\./);
    expect(out).toMatch(/expires at \d{4}-\d\d-\d\dT/);
    const file = JSON.parse(
      readFileSync(new LoginStore(accountOf(sim), 'file', { XDG_CONFIG_HOME: home.dir }).file, 'utf8'),
    );
    expect(out).not.toContain(file.access_token);
    expect(out).not.toContain(file.refresh_token);
  });

  it('says how long it waits, and a browser on another machine finishes the sign-in as the printed steps say', async () => {
    const store = new LoginStore(accountOf(sim), 'file', { XDG_CONFIG_HOME: home.dir });
    await store.remove();
    const login = runLogin([]);
    const url = await login.url;
    await expect.poll(() => login.out().stderr).toMatch(/curl '<the address>'/);
    const stderr = login.out().stderr;
    const waiting =
      /Waiting up to 5 minutes for the browser to come back to (http:\/\/127\.0\.0\.1:(\d+)\/callback)/.exec(stderr);
    expect(waiting).not.toBeNull();
    const [, callbackUrl, port] = waiting!;
    expect(stderr).toContain(`ssh -L ${port}:127.0.0.1:${port}`);
    expect(stderr).toMatch(/asking for the read scope/);
    // The other machine's browser cannot reach this machine's loopback: its redirect fails to load there.
    const page = await browser.newPage();
    let redirect = '';
    // The approval's redirect is taken from the sign-in service's answer, and the browser is shown an error.
    await page.route(
      (u) => u.pathname.endsWith('/authorize') && !u.search,
      async (route) => {
        const approved = await route.fetch({ maxRedirects: 0 });
        redirect = approved.headers()['location'] ?? '';
        await route.fulfill({ status: 502, body: `This site can't be reached: ${redirect}` });
      },
    );
    try {
      await page.goto(url);
      await page.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => redirect).not.toBe('');
    } finally {
      await page.close();
    }
    expect(redirect.startsWith(`${callbackUrl}?code=`)).toBe(true);
    expect(existsSync(store.file)).toBe(false);
    // What the printed steps say to run on this machine: curl of the address the browser could not load.
    const answer = await fetch(redirect);
    expect(answer.status).toBe(200);
    expect(await login.exit).toBe(0);
    expect(login.out().stdout).toMatch(/Signed in to .* with the read scope\./);
    expect(existsSync(store.file)).toBe(true);
  });

  it('refuses a redirect whose state is not the one it sent, stores nothing, and still takes the real one', async () => {
    const store = new LoginStore(accountOf(sim), 'file', { XDG_CONFIG_HOME: home.dir });
    await store.remove();
    const login = runLogin([]);
    const url = await login.url;
    const redirect = new URL(new URL(url).searchParams.get('redirect_uri')!);
    redirect.searchParams.set('code', 'forged');
    redirect.searchParams.set('state', 'not-the-state-it-sent');
    expect((await fetch(redirect)).status).toBe(400);
    expect(existsSync(store.file)).toBe(false);
    // A forged answer cannot end the sign-in either: the real one still completes it.
    expect(await approveInBrowser(url, /Read/)).toBe('Signed in');
    expect(await login.exit).toBe(0);
    expect(existsSync(store.file)).toBe(true);
  });

  it('logout forgets the login, and the server then asks the user to sign in', async () => {
    await new Promise<void>((resolve) => {
      const login = runLogin([]);
      void login.url.then((url) => approveInBrowser(url, /Read/)).then(() => login.exit.then(() => resolve()));
    });
    const out = spawn(process.execPath, [CLI, 'logout'], { env });
    expect(await new Promise((r) => out.on('exit', r))).toBe(0);
    const { client } = await serverOverStdio();
    try {
      const r = await client.callTool({ name: 'get_active_user_counts', arguments: { range: 'last_7_days' } });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toMatch(/org-analytics-mcp login/);
    } finally {
      await client.close();
    }
  });

  it('login --demo runs the whole flow against the embedded simulator, and login without a service is a usage error', async () => {
    const demo = runLogin(['--demo'], { PATH: env.PATH!, XDG_CONFIG_HOME: home.dir });
    expect(await approveInBrowser(await demo.url, /Read organization analytics/)).toBe('Signed in');
    expect(await demo.exit).toBe(0);
    expect(demo.out().stdout).toMatch(/The new token works/);
    const bare = spawn(process.execPath, [CLI, 'login'], { env: { PATH: env.PATH!, XDG_CONFIG_HOME: home.dir } });
    let stderr = '';
    bare.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await new Promise((r) => bare.on('exit', r))).toBe(2);
    expect(stderr).toMatch(/Set ANALYTICS_AUTH_URL and ANALYTICS_CLIENT_ID/);
  });

  it('refuses to serve a login to other machines (--http on a non-loopback address)', async () => {
    const child = spawn(process.execPath, [CLI, '--http', '--host', '0.0.0.0', '--api-keys-file', '/nonexistent'], {
      env: { ...env, ANALYTICS_BASE_URL: sim.url },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await new Promise((r) => child.on('exit', r))).toBe(2);
    expect(stderr).toMatch(/a login .* serves one person/);
  });
});
