import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { configSchema } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { Pseudonymizer } from '../../src/pii.js';
import { createServer } from '../../src/server.js';
import { startSimulator } from '../../src/simulator/index.js';
import { AnalyticsClient } from '../../src/upstream/client.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const QUESTIONS: Array<[string, string, Record<string, unknown>]> = [
  ['top 10 users by credits, 30 days', 'get_credit_usage', { range: 'last_30_days', limit: 10 }],
  ['DAU trend over 90 days', 'get_active_user_counts', { range: 'last_90_days' }],
  ['cost by model, last month', 'get_cost_analytics', { range: 'previous_month', group_by: ['resource'] }],
  ['most active editors yesterday', 'get_editor_language_activity', { group_by: 'editor' }],
  ['current overrides', 'get_budget_overrides', {}],
];

/** For five typical questions: the bytes of text we return against the raw upstream JSON needed to answer them. */
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

interface StartFigures {
  ms: number;
  rssMb: number;
}

/** Spawn to the first tools/list answer over stdio, then the resident set size once idle. */
async function coldStart(args: string[], env: NodeJS.ProcessEnv): Promise<StartFigures> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
  let out = '';
  const answered = new Promise<number>((resolve) =>
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"id":2')) resolve(performance.now() - t0);
    }),
  );
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const ms = await answered;
  await new Promise((r) => setTimeout(r, 1000));
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  child.kill();
  return { ms, rssMb: rssKb / 1024 };
}

const MINIMAL = `import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
serveStdio(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' });
  server.registerTool('echo', { description: 'echo', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
});
`;

export async function benchColdStart(print: (line: string) => void): Promise<void> {
  const dir = mkdtempSync(join(ROOT, 'node_modules', '.oam-bench-'));
  const minimal = join(dir, 'minimal.mjs');
  writeFileSync(minimal, MINIMAL);
  const env = { PATH: process.env.PATH, ANALYTICS_API_TOKEN: 'bench-token', ANALYTICS_BASE_URL: 'http://127.0.0.1:9' };
  const runs = 9;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  try {
    const ours: StartFigures[] = [];
    const base: StartFigures[] = [];
    for (let i = 0; i < runs; i++) {
      ours.push(await coldStart([join(ROOT, 'dist/cli.js')], env));
      base.push(await coldStart([minimal], env));
    }
    print(`cold start, spawn to first tools/list answer over stdio (median of ${runs}):`);
    print(
      `  org-analytics-mcp (bundled, 10 tools): ${median(ours.map((f) => f.ms)).toFixed(0)} ms; idle RSS ${median(ours.map((f) => f.rssMb)).toFixed(1)} MB`,
    );
    print(
      `  minimal SDK v2 stdio server (1 tool):  ${median(base.map((f) => f.ms)).toFixed(0)} ms; idle RSS ${median(base.map((f) => f.rssMb)).toFixed(1)} MB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
