import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Starts `--demo --http` on a loopback address and waits for the URL it prints. */
function serve(host: string): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(process.execPath, [CLI, '--demo', '--http', '--host', host, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /Streamable HTTP at (\S+)/.exec(err);
      if (m) resolve({ child, url: new URL(m[1]!) });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

/** A raw POST, so Host and Origin can be anything a hostile page or process would send. */
function post(url: URL, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.once('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
  });
}

describe('--http refuses what it cannot protect', () => {
  it.each(['0.0.0.0', '::', '192.0.2.10'])('does not start on a non-loopback address (%s) and says why', (host) => {
    const run = spawnSync(process.execPath, [CLI, '--demo', '--http', '--host', host, '--port', '0'], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/on \S+ without caller authentication.*--auth-issuer URL.*--api-keys-file FILE/s);
    expect(run.stdout).toBe('');
  });

  it('with authentication but no name to check the Host header against, still does not start', () => {
    const run = spawnSync(
      process.execPath,
      [CLI, '--demo', '--http', '--host', '0.0.0.0', '--port', '0', '--api-keys-file', '/nonexistent/keys.json'],
      { encoding: 'utf8', timeout: 15_000 },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/give --public-url or --allowed-hosts/);
  });

  it('--auth-issuer without --public-url does not start: the audience would be unknown', () => {
    const run = spawnSync(
      process.execPath,
      [CLI, '--demo', '--http', '--port', '0', '--auth-issuer', 'https://id.example.com'],
      { encoding: 'utf8', timeout: 15_000 },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--auth-issuer needs --public-url/);
  });
});

describe('on any loopback bind, Host and Origin are checked and only /mcp is served', () => {
  let served: { child: ChildProcess; url: URL };
  beforeAll(async () => {
    served = await serve('127.0.0.2');
  });
  afterAll(() => served.child.kill());

  it('answers its own address', async () => {
    expect(await post(served.url, '/mcp', { host: served.url.host, 'mcp-protocol-version': '2025-06-18' })).not.toBe(
      403,
    );
  });

  it('refuses a forged Host header', async () => {
    expect(await post(served.url, '/mcp', { host: `evil.example:${served.url.port}` })).toBe(403);
  });

  it('refuses a foreign Origin', async () => {
    expect(await post(served.url, '/mcp', { host: served.url.host, origin: 'http://evil.example' })).toBe(403);
  });

  it.each(['/mcpXYZ', '/mcp/extra', '/'])('serves nothing at %s', async (path) => {
    expect(await post(served.url, path, { host: served.url.host })).toBe(404);
  });
});
