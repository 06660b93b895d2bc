import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { configSchema } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { createServer } from '../../src/mcp/server.js';
import { startSimulator } from '../../src/simulator/index.js';
import { AnalyticsClient } from '../../src/upstream/client.js';

const QUESTIONS: Array<[string, string, Record<string, unknown>]> = [
  ['top 10 users by credits, 30 days', 'get_credit_usage', { range: 'last_30_days', limit: 10 }],
  ['DAU trend over 90 days', 'get_active_user_counts', { range: 'last_90_days' }],
  ['cost by model, last month', 'get_cost_analytics', { range: 'previous_month', group_by: ['resource'] }],
  ['most active editors yesterday', 'get_editor_language_activity', { group_by: 'editor' }],
  ['current overrides', 'get_budget_overrides', {}],
  ['who is about to hit their budget', 'get_budget_status', {}],
  ['how are we doing, last 30 days', 'get_usage_overview', {}],
  ['one service account, last 30 days', 'get_user_profile', { user: 'ci-pipeline' }],
  [
    'credits vs previous 30 days',
    'get_credit_usage',
    { range: 'last_30_days', limit: 10, compare_to: 'previous_period' },
  ],
];

/** For typical questions: the bytes of text we return against the raw upstream JSON needed to answer them. */
export async function benchAnswerSizes(print: (line: string) => void): Promise<void> {
  const sim = await startSimulator({ users: 800, now: '2026-11-21T10:00:00Z', rateLimit: false, token: 'bench' });
  const config = configSchema.parse({ token: 'bench', baseUrl: sim.url, logLevel: 'error' });
  const pii = new Pseudonymizer('full', 'bench');
  const upstream = new AnalyticsClient({
    baseUrl: sim.url,
    token: 'bench',
    now: () => sim.clock.now(),
    limits: {
      general: { perMinute: 60_000, burst: 1000 },
      'credit-usage': { perMinute: 60_000, burst: 1000 },
      'cost-analytics': { perMinute: 60_000, burst: 1000 },
    },
  });
  const server = createServer({
    client: upstream,
    config,
    pii,
    log: createLogger(
      'error',
      (t) => t,
      () => {},
    ),
    audit: () => {},
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(b);
  const { tools } = await client.listTools();
  print(
    `tools/list payload: ${(Buffer.byteLength(JSON.stringify({ tools })) / 1024).toFixed(1)} KB for ${tools.length} tools`,
  );
  print('answer size, 800-person organization: text we return vs raw upstream JSON needed');
  print('  question                              text B   upstream B   ratio  requests');
  for (const [label, tool, args] of QUESTIONS) {
    sim.clearRequests();
    const result = await client.callTool({ name: tool, arguments: args });
    const text = (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
    let raw = 0;
    const requests = sim.requests();
    for (const r of requests) {
      const url = new URL(r.path, sim.url);
      for (const [k, v] of Object.entries(r.query)) url.searchParams.set(k, v);
      const res = await fetch(url, {
        method: r.method,
        headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
        body: r.method === 'POST' ? JSON.stringify(r.body ?? {}) : undefined,
      });
      raw += (await res.arrayBuffer()).byteLength;
    }
    const bytes = Buffer.byteLength(text);
    print(
      `  ${label.padEnd(36)} ${String(bytes).padStart(7)} ${String(raw).padStart(11)} ${((bytes / raw) * 100).toFixed(1).padStart(6)}% ${String(requests.length).padStart(8)}`,
    );
  }
  await client.close();
  await upstream.close();
  await sim.close();
}
