import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  child = spawn(process.execPath, [CLI, '--demo', '--http', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /Streamable HTTP at (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
});
afterAll(() => child.kill());

describe('--http', () => {
  for (const mode of ['legacy', 'auto'] as const) {
    it(`serves Streamable HTTP to a ${mode === 'auto' ? '2026-07-28' : '2025-era'} client`, async () => {
      const client = new Client({ name: 'http-e2e', version: '1.0.0' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        expect((await client.listTools()).tools).toHaveLength(10);
        const r = await client.callTool({ name: 'get_changelog', arguments: { client: 'models' } });
        expect(r.isError).toBeFalsy();
      } finally {
        await client.close();
      }
    });
  }

  it('refuses a foreign Origin (DNS rebinding protection on loopback)', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        origin: 'https://evil.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(res.status).toBe(403);
  });
});
