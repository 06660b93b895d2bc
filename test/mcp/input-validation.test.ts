import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.js';
import { harness, type Harness } from '../helpers/mcp.js';

const valid = (tool: string) => Object.keys(TOOLS.find((t) => t.name === tool)!.input.shape);

describe.each(['legacy', 'modern'] as const)(
  'arguments are checked, with words that say what to change (%s client)',
  (era) => {
    let h: Harness;
    beforeAll(async () => {
      h = await harness({ era, sim: { users: 30 } });
    });
    afterAll(() => h.close());
    beforeEach(() => h.sim.clearRequests());

    it.each(TOOLS.map((t) => t.name))(
      '%s refuses an unknown argument name, lists the valid ones and sends nothing',
      async (tool) => {
        const r = await h.call(tool, { foo: 1 });
        expect(r.isError).toBe(true);
        expect(r.text).toContain(
          `Invalid arguments for ${tool}: unknown argument foo; the valid arguments are ${valid(tool).join(', ')}`,
        );
        expect(r.text).toMatch(/Change the arguments and call again\.$/);
        expect(h.sim.requests()).toEqual([]);
      },
    );

    it('suggests the argument a model most likely meant: from_date is start_date', async () => {
      const r = await h.call('get_daily_usage', {
        from_date: '2026-11-01',
        to_date: '2026-11-10',
        rnage: 'last_7_days',
      });
      expect(r.isError).toBe(true);
      expect(r.text).toContain(
        'unknown arguments from_date (did you mean start_date?), to_date (did you mean end_date?), rnage (did you mean range?)',
      );
      expect(r.text).toContain('the valid arguments are start_date, end_date, range, metrics');
    });

    it('refuses unknown fields in the entries of set_budget_overrides, naming the entry', async () => {
      const r = await h.call('set_budget_overrides', {
        overrides: [
          { user_email: 'a@example.com', limit: '5' },
          { email: 'b@example.com', limit: '5', scope: 'x' },
        ],
        dry_run: true,
      });
      expect(r.isError).toBe(true);
      expect(r.text).toContain(
        'unknown fields in overrides[1] email (did you mean user_email?), scope; the valid fields are user_email, service_account_name, limit, resource, period',
      );
      expect(h.sim.requests()).toEqual([]);
    });

    it('refuses unknown cost-analytics filters', async () => {
      const r = await h.call('get_cost_analytics', {
        range: 'last_7_days',
        filters: { user_email: ['a@example.com'] },
      });
      expect(r.isError).toBe(true);
      expect(r.text).toContain(
        'unknown field in filters user_email (did you mean user_emails?); the valid fields are user_emails, service_account_names, product_names, resource_names, expert_ids',
      );
    });

    it.each([
      ['a number out of range', 'get_user_activity', { limit: 5000 }, 'limit: Too big: expected number to be <=1000'],
      [
        'a string for a number',
        'get_changelog',
        { page: 'two' },
        'page: Invalid input: expected number, received string',
      ],
      [
        'an unknown enum value',
        'get_user_activity',
        { range: 'last_week' },
        'range: Invalid option: expected one of "last_7_days"',
      ],
      ['a missing required argument', 'get_user_profile', {}, 'user is required'],
      [
        'a missing limit',
        'set_budget_overrides',
        { overrides: [{ user_email: 'a@example.com' }], dry_run: true },
        'overrides[0].limit is required',
      ],
      [
        'a limit of the wrong type',
        'set_budget_overrides',
        { overrides: [{ user_email: 'a@example.com', limit: true }], dry_run: true },
        'overrides[0].limit: use a positive whole number (a string, or a JSON number up to 2^53-1), or null or "" to clear',
      ],
    ])('answers %s with an isError result naming the argument', async (_name, tool, args, message) => {
      const r = await h.call(tool, args);
      expect(r.isError).toBe(true);
      expect(r.text).toContain(`Invalid arguments for ${tool}: ${message}`);
      expect(r.text).toMatch(/Change the arguments and call again\.$/);
    });

    it.each([
      ['a value of the wrong type', 'get_changelog', { page: 'two' }],
      ['an unknown argument name', 'get_daily_usage', { foo: 1 }],
      ['a missing required argument', 'get_user_profile', {}],
      ['a value outside the enum', 'get_user_activity', { range: 'last_week' }],
    ])('answers %s through our funnel, never in the SDK words or as a JSON-RPC error', async (_name, tool, args) => {
      const r = await h.call(tool, args);
      expect(r.isError).toBe(true);
      expect(r.structured).toBeUndefined();
      expect(r.text).toMatch(
        new RegExp(`^Invalid arguments for ${tool}: .*Change the arguments and call again\\.$`, 's'),
      );
      expect(r.text).not.toMatch(/Input validation error|MCP error|-32602|Invalid arguments for tool/);
      // A refused argument is the caller's to fix, not a bug: logged as expected, without a stack.
      const line = JSON.parse(h.logs.filter((l) => l.includes('"tool failed"')).at(-1)!);
      expect(line).toMatchObject({ level: 'info', tool });
      expect(line).not.toHaveProperty('stack');
    });

    const FORMS = 'compare_to: use "previous_period", "previous_year" or {start_date, end_date}';
    it.each([
      ['an empty object', {}, `${FORMS} (compare_to.start_date is required; compare_to.end_date is required)`],
      ['an unknown name', 'last_year', FORMS],
      ['a number', 5, FORMS],
      ['an array', [], FORMS],
      ['half a period', { start_date: '2026-10-01' }, `${FORMS} (compare_to.end_date is required)`],
      [
        'a misspelt field',
        { from: '2026-10-01', end_date: '2026-10-31' },
        `${FORMS} (unknown field in compare_to from (did you mean start_date?); the valid fields are start_date, end_date; compare_to.start_date is required)`,
      ],
      [
        'a date in another format',
        { start_date: '2026-10-01', end_date: '31.10.2026' },
        'compare_to.end_date: use YYYY-MM-DD',
      ],
    ])('answers compare_to as %s naming the forms it takes', async (_what, compare_to, message) => {
      for (const tool of TOOLS.filter((t) => 'compare_to' in t.input.shape).map((t) => t.name)) {
        const r = await h.call(tool, { range: 'previous_month', compare_to });
        expect(r.isError, tool).toBe(true);
        expect(r.text, tool).toContain(`Invalid arguments for ${tool}: ${message}`);
        expect(r.text, tool).not.toMatch(/Invalid input(?!:)/);
      }
      expect(h.sim.requests()).toEqual([]);
    });

    it('keeps the answer short when thousands of arguments are wrong', async () => {
      const overrides = Array.from({ length: 5000 }, (_, i) => ({
        user_email: `u${i}@example.com`,
        limit: '5',
        [`x${i}`]: 1,
      }));
      const many = await h.call('set_budget_overrides', { overrides, dry_run: true, ['y'.repeat(100_000)]: 1 });
      expect(many.isError).toBe(true);
      expect(many.text).toContain('and 4991 more problems');
      expect(many.text).toContain(`unknown argument ${'y'.repeat(79)}…;`);
      expect(many.text.length).toBeLessThan(3000);
    });

    it('still takes a limit as a string, a JSON number or null', async () => {
      const user = h.sim.state.org.identities.find((i) => i.kind === 'user' && i.leaveDay === Infinity)!.id;
      for (const limit of ['500', 500, Number.MAX_SAFE_INTEGER, null, '']) {
        const r = await h.call('set_budget_overrides', {
          overrides: [{ user_email: user, limit, resource: 'credits' }],
          dry_run: true,
        });
        expect(r.text, String(limit)).not.toMatch(/Invalid arguments/);
        expect(r.structured.entries[0].status, String(limit)).not.toBe('invalid');
      }
    });
  },
);
