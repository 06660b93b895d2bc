import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { failure, harness, type Harness } from '../../helpers/mcp.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 20 } });
});
afterAll(() => h.close());
afterEach(() => {
  h.sim.clearFaults();
  vi.restoreAllMocks();
});

/** The parsed log lines with this message. */
const logged = (message: string) =>
  h.logs
    .map((l) => JSON.parse(l) as { level: string; message: string; [k: string]: unknown })
    .filter((l) => l.message === message);

describe('the changelog resource', () => {
  it('lists changelog://all/0 and the template', async () => {
    const { resources } = await h.mcp.listResources();
    // The MCP Apps views are resources too (ui://); see test/ui/.
    expect(resources.filter((r) => !r.uri.startsWith('ui://'))).toEqual([
      expect.objectContaining({ uri: 'changelog://all/0', mimeType: 'application/json' }),
    ]);
    const { resourceTemplates } = await h.mcp.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['changelog://{client}/{page}']);
  });

  it('reads a page as JSON', async () => {
    const { contents } = await h.mcp.readResource({ uri: 'changelog://cli/1' });
    expect(contents[0]!.mimeType).toBe('application/json');
    const body = JSON.parse((contents[0] as { text: string }).text);
    expect(body).toMatchObject({ client: 'cli', page: 1, pageSize: 10 });
  });

  it('completes the client argument', async () => {
    const { completion } = await h.mcp.complete({
      ref: { type: 'ref/resource', uri: 'changelog://{client}/{page}' },
      argument: { name: 'client', value: 'c' },
    });
    expect(completion.values).toEqual(['cli', 'code-review']);
  });

  it('refuses an unknown client as a protocol error naming the valid ones', async () => {
    await expect(h.mcp.readResource({ uri: 'changelog://emacs/0' })).rejects.toThrow(/vscode, jetbrains/);
  });

  it.each([
    ['an unknown client', 'changelog://emacs/0', "Unknown changelog client 'emacs'; use one of vscode, jetbrains"],
    [
      'a page that is not a number',
      'changelog://all/two',
      "Changelog page must be a whole number of 0 or more, got 'two'.",
    ],
    // A value is echoed cut, never whole.
    [
      'a huge client',
      `changelog://${'x'.repeat(50_000)}/0`,
      `Unknown changelog client '${'x'.repeat(79)}…'; use one of`,
    ],
    ['a huge page', `changelog://all/${'9'.repeat(50_000)}`, `got '${'9'.repeat(79)}…'.`],
  ])('refuses %s as invalid params, in the words of the tools', async (_name, uri, words) => {
    const error = await failure(h.mcp.readResource({ uri }));
    expect(error.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(error.message).toContain(words);
    expect(error.message).toMatch(/Change the arguments and call again\.$/);
    expect(logged('resource read failed').at(-1)).toMatchObject({ level: 'info', uri });
  });

  it('answers an upstream outage with the words a tool would give', async () => {
    h.sim.injectFault({ path: '/api/changelog', kind: '503', count: 3 });
    const error = await failure(h.mcp.readResource({ uri: 'changelog://jetbrains/3' }));
    expect(error.code).toBe(ProtocolErrorCode.InternalError);
    expect(error.message).toMatch(/The public changelog is unavailable: .*Try again in a minute\./s);
    expect(logged('resource read failed').at(-1)).toMatchObject({ level: 'info' });
  });

  it('answers a bug as one, and logs it with its stack', async () => {
    vi.spyOn(h.upstream, 'call').mockRejectedValueOnce(new TypeError('entries is not iterable'));
    const error = await failure(h.mcp.readResource({ uri: 'changelog://models/2' }));
    expect(error.code).toBe(ProtocolErrorCode.InternalError);
    expect(error.message).toMatch(/^Internal error in org-analytics-mcp: entries is not iterable\. This is a bug/);
    expect(logged('resource read failed').at(-1)).toMatchObject({
      level: 'error',
      stack: expect.stringContaining('TypeError'),
    });
  });
});
