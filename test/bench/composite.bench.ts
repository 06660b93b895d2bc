import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { configSchema } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { createServer } from '../../src/mcp/server.js';
import { startSimulator } from '../../src/simulator/index.js';
import { AnalyticsClient } from '../../src/upstream/client.js';

const QUESTIONS: Array<[string, string, Record<string, unknown>]> = [
  ['budget status', 'get_budget_status', {}],
  ['usage overview, last 30 days', 'get_usage_overview', {}],
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 13's figures: the composite answers on 10,000 people at the documented rate limits, in process
 * (default settings: an answer within 40 s), cold and then warm: time to the complete answer and upstream calls.
 */
export async function benchComposite(print: (line: string) => void): Promise<void> {
  const sim = await startSimulator({ users: 10_000, token: 'bench-composite', rateLimit: true });
  const config = configSchema.parse({ token: sim.token, baseUrl: sim.url, logLevel: 'error' });
  const upstream = new AnalyticsClient({ baseUrl: sim.url, token: sim.token });
  const log = createLogger(
    'error',
    (t) => t,
    () => {},
  );
  const server = createServer({ client: upstream, config, log, pii: new Pseudonymizer('full', 'b'), audit: () => {} });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(b);
  const upstreamCalls = () => sim.requests().filter((r) => r.path.startsWith('/analytics/')).length;
  try {
    print('composite answers, 10,000 people, documented rate limits, in process:');
    for (const [label, tool, args] of QUESTIONS) {
      for (const run of ['cold', 'warm']) {
        sim.clearRequests();
        const t0 = performance.now();
        let calls = 0;
        let first = 0;
        for (;;) {
          const r = await client.callTool({ name: tool, arguments: args }, { timeout: 120_000 });
          calls++;
          first ||= performance.now() - t0;
          const sc = r.structuredContent as { complete?: boolean; pending?: { retry_after_s: number } };
          if (sc.complete !== false || r.isError) break;
          await sleep(sc.pending!.retry_after_s * 1000);
        }
        const total = performance.now() - t0;
        print(
          `  ${run} ${label.padEnd(30)} first answer ${(first / 1000).toFixed(1)} s, complete after ${(total / 1000).toFixed(1)} s ` +
            `(${calls} call${calls === 1 ? '' : 's'}); upstream requests ${upstreamCalls()}, 429s ${sim.requests().filter((q) => q.status === 429).length}`,
        );
      }
    }
  } finally {
    await client.close();
    await upstream.close();
    await sim.close();
  }
}
