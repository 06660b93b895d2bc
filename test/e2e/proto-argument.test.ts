import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createServer } from '../../src/mcp/server.js';
import { harness, type Harness } from '../helpers/mcp.js';

/** A tools/call sent as raw JSON text, as a client on the wire would: the only way "__proto__" is an own key. */
async function rawCall(h: Harness, argumentsJson: string): Promise<{ isError: boolean; text: string }> {
  const handler = createMcpHandler(() => createServer(h.deps));
  const post = async (body: string) => {
    const res = await handler.fetch(
      new Request('http://in-process.test/mcp', {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
      }),
    );
    const text = await res.text();
    const data = text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6);
    return JSON.parse(data);
  };
  try {
    const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
    await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize }));
    const answer = await post(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_changelog","arguments":${argumentsJson}}}`,
    );
    return { isError: answer.result.isError === true, text: answer.result.content[0].text };
  } finally {
    await handler.close();
  }
}

describe('"__proto__" is refused like any unknown argument', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ sim: { users: 20 } });
  });
  afterAll(() => h.close());

  it.each([
    ['a number', '{"__proto__":1}'],
    ['an object', '{"__proto__":{"page":2}}'],
    ['next to valid arguments', '{"page":1,"__proto__":null}'],
  ])('over HTTP, as raw JSON, with %s for a value', async (_what, args) => {
    h.sim.clearRequests();
    const r = await rawCall(h, args);
    expect(r.isError).toBe(true);
    expect(r.text).toContain(
      'Invalid arguments for get_changelog: unknown argument __proto__; the valid arguments are client, page',
    );
    expect(h.sim.requests()).toEqual([]);
  });

  it('from a 2026-07-28 client, top level and nested', async () => {
    const modern = await harness({ era: 'modern', sim: { users: 20 } });
    try {
      const top = await modern.call('get_changelog', JSON.parse('{"__proto__":1}'));
      expect(top.isError).toBe(true);
      expect(top.text).toContain('unknown argument __proto__;');
      const nested = await modern.call(
        'get_daily_usage',
        JSON.parse(
          '{"range":"last_7_days","compare_to":{"__proto__":1,"start_date":"2026-10-01","end_date":"2026-10-07"}}',
        ),
      );
      expect(nested.isError).toBe(true);
      expect(nested.text).toContain('unknown field in compare_to __proto__; the valid fields are start_date, end_date');
    } finally {
      await modern.close();
    }
  });

  it('over stdio, from the built binary, as raw JSON lines', async () => {
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const child = spawn(process.execPath, [cli, '--demo'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize })}\n`);
      await expect.poll(() => out, { timeout: 10_000 }).toContain('"id":1');
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      child.stdin.write(
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_changelog","arguments":{"__proto__":{"page":1}}}}\n',
      );
      await expect.poll(() => out, { timeout: 10_000 }).toContain('"id":2');
      const answer = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((m) => m.id === 2);
      expect(answer.result.isError).toBe(true);
      expect(answer.result.content[0].text).toContain('unknown argument __proto__;');
    } finally {
      child.kill();
    }
  });
});
