import { afterEach, describe, expect, it } from 'vitest';
import { HELP, loadConfig } from '../../../src/config/config.js';
import type { FaultSpec } from '../../../src/simulator/index.js';
import { harness, type Harness, type HarnessOptions } from '../../helpers/mcp.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const start = async (options: HarnessOptions = {}) => (h = await harness({ sim: { users: 30 }, ...options }));
const members = (hh: Harness) =>
  hh.sim.state.org.identities.filter((i) => i.kind === 'user' && i.leaveDay === Infinity).map((i) => i.id);

/** Time a tool call takes, through a real MCP client. */
async function timed(hh: Harness, tool: string, args: Record<string, unknown> = {}) {
  const started = Date.now();
  const answer = await hh.call(tool, args);
  return { ...answer, ms: Date.now() - started };
}

describe('every call has a budget, and says so when the upstream outlasts it', () => {
  const stalls: Array<[string, FaultSpec['kind'], Partial<FaultSpec>]> = [
    ['hangs', 'hang', {}],
    ['trickles its body a byte at a time', 'trickle', { intervalMs: 200 }],
  ];

  it.each(stalls)(
    'an upstream that %s: a clear isError once the call budget is spent',
    async (_name, kind, extra) => {
      const hh = await start({ config: { callTimeoutS: 1.5 } });
      hh.sim.injectFault({ path: '*', kind, count: 10, ...extra });
      const r = await timed(hh, 'get_daily_usage');
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(
        /^The analytics API did not answer in time: No complete answer within this call's 1\.5 s budget\./,
      );
      expect(r.text).toMatch(/Try again in a minute/);
      expect(r.text).toMatch(/--call-timeout, ANALYTICS_CALL_TIMEOUT_S/);
      expect(r.text).not.toMatch(/cancelled/);
      // The budget, not the client or a per-request timer, ended it: no sooner, and well before any other timer.
      expect(r.ms).toBeGreaterThanOrEqual(1400);
      expect(r.ms).toBeLessThan(1500 + 8000);
    },
    20_000,
  );

  it('a write that outlasts the budget says it may have been applied, and how to check', async () => {
    const hh = await start({ config: { callTimeoutS: 1.5, confirmWrites: 'never' } });
    hh.sim.injectFault({ path: '/analytics/v0/set-user-budget-overrides', kind: 'hang' });
    const r = await timed(hh, 'set_budget_overrides', { overrides: [{ user_email: members(hh)[0], limit: '1200' }] });
    expect(r.isError).toBe(true);
    expect(r.structured.chunks).toEqual([expect.objectContaining({ outcome: 'outcome_unknown' })]);
    const said = r.structured.chunks[0].error as string;
    expect(said).toMatch(/did not answer in time/);
    expect(said).toMatch(
      /may or may not have been applied: check with get_budget_overrides \(or repeat the same call with dry_run: true/,
    );
    expect(said).not.toMatch(/date range|retried already/);
    expect(r.ms).toBeLessThan(1500 + 8000);
  }, 20_000);

  it('a call that finishes in time is untouched by its budget', async () => {
    const hh = await start({ config: { callTimeoutS: 5 } });
    hh.sim.injectFault({ path: '*', kind: 'trickle', intervalMs: 1, count: 1 });
    const r = await hh.call('get_active_user_counts', {});
    expect(r.isError).toBe(false);
  }, 20_000);

  it('with default settings, a hanging upstream answers a clear isError before 45 s', async () => {
    const hh = await start();
    hh.sim.injectFault({ path: '*', kind: 'hang', count: 100 });
    const r = await timed(hh, 'get_daily_usage');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      /^The analytics API did not answer in time: No complete answer within this call's 42 s budget\./,
    );
    expect(r.ms).toBeLessThan(45_000);
  }, 60_000);
});

describe('the call budget is configurable', () => {
  const load = (argv: string[], env: NodeJS.ProcessEnv = {}) => loadConfig(['--demo', ...argv], env);

  it('by --call-timeout or ANALYTICS_CALL_TIMEOUT_S (the flag wins), 42 s by default', () => {
    expect(load([]).callTimeoutS).toBe(42);
    expect(load([], { ANALYTICS_CALL_TIMEOUT_S: '20' }).callTimeoutS).toBe(20);
    expect(load(['--call-timeout', '7.5'], { ANALYTICS_CALL_TIMEOUT_S: '20' }).callTimeoutS).toBe(7.5);
    expect(HELP).toMatch(/--call-timeout SECONDS/);
    expect(HELP).toMatch(/ANALYTICS_CALL_TIMEOUT_S/);
  });

  it.each(['abc', '0', '-3', '1e9'])('refuses %s with a readable message', (value) => {
    expect(() => load([`--call-timeout=${value}`])).toThrow(/callTimeoutS/);
    expect(() => load([], { ANALYTICS_CALL_TIMEOUT_S: value })).toThrow(
      /Invalid configuration:\n {2}callTimeoutS: .*(seconds|too big|<=)/s,
    );
  });
});
