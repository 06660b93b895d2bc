import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { createServer } from '../../src/mcp/server.js';
import { AnalyticsClient } from '../../src/upstream/client.js';
import { UNLIMITED } from '../helpers/client.js';

const TOKEN = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
const CODES: Record<number, string> = { 400: 'InvalidArgument', 403: 'PermissionDenied', 500: 'Internal' };

/** An upstream that quotes the caller's credential back in its error messages, as a careless proxy or API might. */
function echoingUpstream(status: () => number): Server {
  return createHttpServer((req, res) => {
    // The public changelog is sent no credential; its host leaks the API's one, as a shared gateway might.
    const auth = req.headers.authorization ?? `Bearer ${TOKEN}`;
    const code = status();
    const message = `request rejected; you sent Authorization: ${auth} (token=${auth.replace(/^Bearer /, '')})`;
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        req.url?.startsWith('/api/changelog') ? { error: 'bad', message } : { error: { code: CODES[code], message } },
      ),
    );
  });
}

let status = 400;
let upstream: Server;
let mcp: Client;

beforeAll(async () => {
  upstream = echoingUpstream(() => status);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const config = configSchema.parse({ token: TOKEN, baseUrl: url, siteUrl: url });
  const pii = new Pseudonymizer('full', TOKEN);
  const client = new AnalyticsClient({
    baseUrl: url,
    siteUrl: url,
    token: TOKEN,
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
    limits: UNLIMITED,
  });
  const server = createServer({
    client,
    config,
    pii,
    log: createLogger(
      'error',
      (t) => t,
      () => {},
    ),
    audit: () => {},
  });
  mcp = new Client({ name: 'secrets-test', version: '1.0.0' });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await mcp.connect(clientSide);
});
afterAll(async () => {
  await mcp.close();
  await new Promise((r) => upstream.close(r));
});

describe('no credential reaches the model, even when the upstream quotes it', () => {
  it.each([400, 403, 500])('a %i that echoes the Authorization header', async (code) => {
    status = code;
    const result = await mcp.callTool({ name: 'get_daily_usage', arguments: {} });
    const text = JSON.stringify(result);
    expect(result.isError).toBe(true);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toMatch(/sk-live/);
  });

  it('a resource read whose error quotes a bearer credential', async () => {
    status = 500;
    const error = await mcp.readResource({ uri: 'changelog://all/0' }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('[redacted]');
    expect(error?.message).not.toMatch(/sk-live/);
  });

  it('prompt texts pass the same scrubber', async () => {
    const prompt = await mcp.getPrompt({ name: 'budget_review' });
    expect(JSON.stringify(prompt)).not.toMatch(/sk-live/);
  });
});
