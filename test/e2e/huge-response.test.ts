import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const USER_ACTIVITY = '/analytics/v0/user-activity';
const HUGE = 300 * 1024 * 1024;

/** Every file under `dir`, read as text. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [readFileSync(path, 'utf8')];
  });
}

describe('a 300 MB upstream page, to the built binary under a 512 MB heap', () => {
  let sim: Simulator;
  let cacheDir: string;
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    sim = await startSimulator({ users: 40, token: 'huge-token', rateLimit: false });
    cacheDir = mkdtempSync(join(tmpdir(), 'oam-huge-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--max-old-space-size=512', CLI],
      env: {
        PATH: process.env.PATH ?? '',
        ANALYTICS_API_TOKEN: 'huge-token',
        ANALYTICS_BASE_URL: sim.url,
        ANALYTICS_CACHE_DIR: cacheDir,
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    client = new Client({ name: 'e2e-huge', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await sim?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  // The client gives each call 45 s: an answer any later fails the test.
  const ask = (range: string) =>
    client.callTool({ name: 'get_user_activity', arguments: { range } }, { timeout: 45_000 });
  const textOf = (r: Awaited<ReturnType<typeof ask>>) => (r.content as Array<{ text: string }>)[0]!.text;

  it.each([
    ['with a Content-Length', true, 'last_7_days'],
    ['streamed without one', false, 'last_30_days'],
  ])(
    '%s: answers an error naming the endpoint and the cap, then the next question',
    async (_, contentLength, range) => {
      sim.clearFaults();
      sim.clearRequests();
      sim.injectFault({ path: USER_ACTIVITY, kind: 'huge', bytes: HUGE, contentLength });
      const cut = await ask(range);
      expect(cut.isError).toBe(true);
      expect(textOf(cut)).toMatch(/user-activity \(GET http:\/\/[^)]+\/analytics\/v0\/user-activity\)/);
      expect(textOf(cut)).toMatch(/over the 32 MB this server reads of one response\./);
      expect(textOf(cut)).toMatch(/raises the cap \(--max-response-mb, ANALYTICS_MAX_RESPONSE_MB\)/);
      expect(textOf(cut)).toMatch(contentLength ? /announced 300 MB/ : /sent more than that/);
      // Not retried: the same page would be as large again.
      expect(sim.requests().filter((r) => r.path === USER_ACTIVITY && r.fault === 'huge')).toHaveLength(1);

      // The same question again: the cut page was not cached, so it is asked for anew, and answered.
      const again = await ask(range);
      expect(again.isError).toBeFalsy();
      expect(textOf(again)).toMatch(/active/i);
      expect(sim.requests().filter((r) => r.path === USER_ACTIVITY && !r.fault).length).toBeGreaterThan(0);
    },
  );

  it('kept nothing of the cut pages, and the process never ran short of memory', async () => {
    await new Promise((r) => setTimeout(r, 500));
    expect(filesUnder(cacheDir).some((text) => text.includes('huge.page@example.com'))).toBe(false);
    expect(stderr).not.toMatch(/heap out of memory|FATAL ERROR/);
    const listed = await client.listTools();
    expect(listed.tools.length).toBeGreaterThan(0);
  });
});
