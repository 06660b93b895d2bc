import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuditSink } from '../../src/privacy/audit.js';
import { configSchema } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { createServer } from '../../src/mcp/server.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { LimitsConfig } from '../../src/upstream/limits/limits-config.js';
import { clientFor, requestsTo } from '../helpers/client.js';
import { NOW } from '../helpers/sim.js';

interface Answer {
  isError: boolean;
  text: string;
  structured: any;
}
interface Served {
  call(
    args: Record<string, unknown>,
    onprogress?: (p: { progress: number; message?: string }) => void,
  ): Promise<Answer>;
  close(): Promise<void>;
  clearCache(): void;
}

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function simulator(users: number): Promise<Simulator> {
  const sim = await startSimulator({ users, now: NOW, rateLimit: false, token: 'rw' });
  closing.push(() => sim.close());
  return sim;
}

/** The real server over an in-memory MCP connection, its client paced as `limits` say (the simulator does not limit). */
async function serve(sim: Simulator, answerWithinS: number, limits?: Partial<LimitsConfig>): Promise<Served> {
  const config = configSchema.parse({ token: sim.token, baseUrl: sim.url, answerWithinS, logLevel: 'error' });
  const pii = new Pseudonymizer(config.pii, config.token!);
  const log = createLogger(
    'error',
    (t) => t,
    () => {},
  );
  const upstream = clientFor(sim, { limits });
  const server = createServer({ client: upstream, config, log, pii, audit: createAuditSink(pii, undefined, () => {}) });
  const mcp = new Client({ name: 'answer-within', version: '1.0.0' }, { capabilities: {} });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await mcp.connect(clientSide);
  const close = async () => {
    await mcp.close();
    await server.close();
    await upstream.close();
  };
  closing.push(close);
  return {
    async call(args, onprogress) {
      const r = await mcp.callTool({ name: 'get_user_activity', arguments: args }, onprogress ? { onprogress } : {});
      const text = (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
      return { isError: r.isError === true, text, structured: r.structuredContent };
    },
    close,
    clearCache: () => upstream.cache.clear(),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** 200 ms a page after the first: a 30-day walk of 1500 people (16 pages) takes about 3 s. */
const SLOW = { general: { perMinute: 300, burst: 2 } };
const ARGS = { range: 'last_30_days', limit: 5 };

describe('an answer within the budget', () => {
  it('says "not complete yet" with no rows, then answers in full, like a cold run, after ready_at', async () => {
    const sim = await simulator(1500);
    const cold = await (await serve(sim, 40)).call(ARGS);
    expect(cold.structured.complete).toBe(true);
    sim.clearRequests();

    const s = await serve(sim, 1, SLOW);
    const first = await s.call(ARGS);
    expect(first.isError).toBe(false);
    expect(Object.keys(first.structured).sort()).toEqual(['complete', 'pending']);
    const pending = first.structured.pending;
    expect(first.structured.complete).toBe(false);
    expect(pending.pages_fetched).toBeGreaterThan(0);
    expect(pending.pages_expected).toBeNull();
    expect(Date.parse(pending.ready_at)).toBeGreaterThan(Date.now());
    expect(first.text).toMatch(
      /^Not complete yet: user-activity page \d+ fetched, total not known yet\. Call get_user_activity again with the same arguments at about \d\d:\d\d:\d\d UTC \(in ~\d+ s\); that call waits up to 1 s more for the rest\. The fetch goes on in the background\. No rows or totals are given until every page is in\.$/,
    );

    // Asked again at once: joins the running walk rather than starting another.
    const joined = await s.call(ARGS);
    expect(joined.structured.complete).toBe(false);
    expect(joined.structured.pending.pages_fetched).toBeGreaterThan(pending.pages_fetched);

    let full = joined;
    for (let i = 0; i < 10 && full.structured.complete === false; i++) {
      await sleep(Math.max(0, Date.parse(full.structured.pending.ready_at) - Date.now()));
      full = await s.call(ARGS);
    }
    expect(full.structured.complete).toBe(true);
    const { freshness: _f, complete: _c, ...answer } = full.structured;
    const { freshness: _g, complete: _d, ...coldAnswer } = cold.structured;
    expect(answer).toEqual(coldAnswer);
    // Every page was requested once: the joined call and the last one shared the walk and the cache.
    const cursors = requestsTo(sim, 'user-activity').map((r) => r.query.cursor ?? '');
    expect(cursors.length).toBeGreaterThan(10);
    expect(new Set(cursors).size).toBe(cursors.length);

    // A later walk knows how many pages the last one took.
    s.clearCache();
    const again = await s.call(ARGS);
    expect(again.structured.pending.pages_expected).toBe(cursors.length);
    expect(again.text).toMatch(new RegExp(`^Not complete yet: user-activity page \\d+ of ~${cursors.length} fetched;`));
  }, 30_000);

  it('sends progress at most 5 s apart while queued behind the rate limit, saying the page', async () => {
    const sim = await simulator(1500);
    // One page at once, the next 10 s later: the call waits through a long stretch without pages.
    const s = await serve(sim, 9, { general: { perMinute: 6, burst: 2 } });
    const seen: Array<{ at: number; progress: number; message?: string }> = [];
    const started = Date.now();
    const r = await s.call(ARGS, (p) => seen.push({ ...p, at: Date.now() }));
    expect(r.structured.complete).toBe(false);
    const times = [started, ...seen.map((p) => p.at), Date.now()];
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(5000);
    const values = seen.map((p) => p.progress);
    expect(values.every((v, i) => i === 0 || v > values[i - 1]!)).toBe(true);
    expect(seen.at(-1)!.message).toBe('user-activity page 1, total not known yet');
  }, 20_000);
});
