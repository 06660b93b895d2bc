import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey, writeKeysFile } from '../../src/auth/api-keys.js';
import type { Simulator } from '../../src/simulator/index.js';
import { startIssuer, type Issuer } from '../helpers/oidc.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

const READ = 'analytics:read';
const WRITE = 'analytics:write';

let team: TeamServer;
let sim: Simulator;
let issuer: Issuer;
let server: { url: string };
let dir: string;
let readKey: string;
let writeKey: string;
let writeKeyId: string;
let publicUrl: string;

beforeAll(async () => {
  const read = newApiKey('read', null);
  const write = newApiKey('write', null);
  readKey = read.key;
  writeKey = write.key;
  writeKeyId = write.entry.id;
  team = await startTeamServer({ users: 60, token: 'team-upstream', rateLimit: false }, (scratch) => {
    const keys = join(scratch, 'keys.json');
    writeKeysFile(keys, [read.entry, write.entry]);
    return ['--api-keys-file', keys];
  });
  ({ sim, issuer, server, dir, publicUrl } = team);
});
afterAll(() => team?.close());

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

async function connect(token: string): Promise<Client> {
  // 2026-07-28: a stateless HTTP server can ask for a confirmation only in that protocol.
  const client = new Client(
    { name: 'team-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe('an authenticated HTTP server', () => {
  it('names the caller in every audit line of a write it confirmed', async () => {
    const client = await connect(writeKey);
    try {
      const member = sim.state.org.identities.find((i) => i.kind === 'user' && i.leaveDay === Infinity)!.id;
      const r = await client.callTool({
        name: 'set_budget_overrides',
        arguments: { overrides: [{ user_email: member, limit: '2718' }] },
      });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    } finally {
      await client.close();
    }
    const lines = readFileSync(join(dir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line.caller).toBe(writeKeyId);
    expect(readFileSync(join(dir, 'audit.jsonl'), 'utf8')).not.toContain(writeKey);
    // Upstream, every request carried the server's own token (the simulator knows no other), never the caller's.
    const upstream = sim.requests().filter((q) => q.path.startsWith('/analytics/'));
    expect(upstream.length).toBeGreaterThan(0);
    expect(upstream.every((q) => q.auth === 'write')).toBe(true);
  });

  it('publishes its Protected Resource Metadata at both well-known paths', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(new URL(path, server.url));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: publicUrl,
        authorization_servers: [issuer.url],
        scopes_supported: [READ, WRITE],
      });
    }
  });

  it('answers 401 without a token, pointing at the metadata and asking for analytics:read', async () => {
    const res = await post(list);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(
      `resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', server.url)}"`,
    );
    expect(challenge).toContain(`scope="${READ}"`);
  });

  it.each([
    [
      'expired beyond the leeway',
      async () =>
        issuer.forge({ iss: issuer.url, aud: publicUrl, sub: 'a', scope: READ, exp: now() - 120, iat: now() - 400 }),
    ],
    ['for another resource', async () => issuer.token(READ, 'https://other.example.com/mcp')],
    [
      'from another issuer',
      async () =>
        issuer.forge({ iss: 'https://evil.example', aud: publicUrl, sub: 'a', scope: READ, exp: now() + 300 }),
    ],
    [
      'signed by another key',
      async () =>
        await startIssuer().then(async (other) => {
          const t = await other.forge({ iss: issuer.url, aud: publicUrl, sub: 'a', scope: READ, exp: now() + 300 });
          await other.close();
          return t;
        }),
    ],
    ['not a JWT', async () => 'not-a-token'],
    [
      'signed with a shared secret (HS256)',
      async () =>
        new SignJWT({ iss: issuer.url, aud: publicUrl, sub: 'a', scope: READ, exp: now() + 300 })
          .setProtectedHeader({ alg: 'HS256', kid: 'test-key' })
          .sign(new TextEncoder().encode('a-secret-anyone-could-guess-0123456789')),
    ],
  ])('refuses a token %s with 401 invalid_token', async (_what, make) => {
    const res = await post(list, { authorization: `Bearer ${await make()}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('accepts a token that expired within the 60 s leeway', async () => {
    const token = await issuer.forge({
      iss: issuer.url,
      aud: publicUrl,
      sub: 'late',
      scope: READ,
      exp: now() - 20,
      iat: now() - 300,
    });
    expect((await post(list, { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('hides the write tool from a read token, and answers its call with 403 insufficient_scope naming both scopes', async () => {
    const token = await issuer.token(READ, publicUrl);
    const client = await connect(token);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('set_budget_overrides');
      expect(names).toContain('get_user_activity');
    } finally {
      await client.close();
    }
    const before = sim.requests().length;
    const res = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'set_budget_overrides', arguments: {} } },
      { authorization: `Bearer ${token}` },
    );
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain(`scope="${READ} ${WRITE}"`);
    expect(sim.requests().length).toBe(before);
  });

  it('answers a call of an unknown tool as the SDK does, though a one-call request builds a one-tool server', async () => {
    const token = await issuer.token(READ, publicUrl);
    const client = await connect(token);
    try {
      const known = await client.callTool({ name: 'get_budget_overrides', arguments: {} });
      expect(known.isError).toBeFalsy();
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no_such_tool/);
      // The resources and prompts are still there for the requests that ask for them.
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('usage_report');
      expect((await client.listResources()).resources.map((r) => r.uri)).toContain('changelog://all/0');
    } finally {
      await client.close();
    }
  });

  it('shows the write tool to a token with analytics:write', async () => {
    const client = await connect(await issuer.token(`${READ} ${WRITE}`, publicUrl));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('set_budget_overrides');
      const r = await client.callTool({ name: 'get_budget_overrides', arguments: {} });
      expect(r.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('takes an API key as a bearer token, with its role', async () => {
    const client = await connect(readKey);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('set_budget_overrides');
    } finally {
      await client.close();
    }
    expect((await post(list, { authorization: 'Bearer oam_wrong' })).status).toBe(401);
  });

  it('refuses a forged Host or Origin even with a valid token', async () => {
    const token = await issuer.token(READ, publicUrl);
    const auth = { authorization: `Bearer ${token}` };
    expect((await post(list, { ...auth, origin: 'http://evil.example' })).status).toBe(403);
    const forged = await new Promise<number>((resolve, reject) => {
      const url = new URL(server.url);
      import('node:http').then(({ request }) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: {
              host: 'evil.example',
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...auth,
            },
          },
          (res) => resolve(res.statusCode ?? 0),
        );
        req.on('error', reject);
        req.end(JSON.stringify(list));
      }, reject);
    });
    expect(forged).toBe(403);
  });
});

const now = () => Math.floor(Date.now() / 1000);
