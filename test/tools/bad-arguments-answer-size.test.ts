import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.js';
import { requestsTo } from '../helpers/client.js';
import { harness, type Harness, type ToolAnswer } from '../helpers/mcp.js';

/** The most an answer to bad arguments may weigh, text and structured content together. */
const MAX_ANSWER = 8 * 1024;
const HUGE = 'x'.repeat(64 * 1024);
const MIB = '9'.repeat(1024 * 1024);

const deep = (depth: number): unknown => (depth === 0 ? HUGE : { [`k${depth}`]: deep(depth - 1) });
/** Values a fuzzer sends for any argument: long strings, long arrays, deep objects, wide objects. */
const BAD_VALUES: Array<[string, unknown]> = [
  ['a huge string', HUGE],
  ['an array of huge strings', [HUGE, HUGE, HUGE]],
  ['a long array', Array.from({ length: 5000 }, (_, i) => `${HUGE.slice(0, 200)}${i}`)],
  ['a deep object', deep(400)],
  ['a wide object with huge keys', Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${HUGE}${i}`, HUGE]))],
];

/** The fields of an object argument (through optional), when it is one. */
function objectShape(schema: {
  _zod: { def: { type: string; innerType?: unknown; shape?: object } };
}): object | undefined {
  const def = schema._zod.def;
  if (def.innerType) return objectShape(def.innerType as never);
  return def.type === 'object' ? def.shape : undefined;
}

const size = (r: ToolAnswer) => r.text.length + (r.structured === undefined ? 0 : JSON.stringify(r.structured).length);

describe('every answer to bad arguments stays small', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ sim: { users: 30 } });
  });
  afterAll(() => h.close());

  const cases = TOOLS.flatMap((tool) =>
    Object.keys(tool.input.shape).flatMap((field) =>
      BAD_VALUES.map(([what, value]) => [tool.name, field, what, value] as const),
    ),
  );
  it.each(cases)('%s with %s as %s', async (tool, field, _what, value) => {
    const r = await h.call(tool, { [field]: value });
    expect(r.isError).toBe(true);
    expect(size(r)).toBeLessThanOrEqual(MAX_ANSWER);
    // Each refusal names what is accepted: never zod's bare "Invalid input".
    expect(r.text).not.toMatch(/Invalid input(?!:)/);
  });

  // Huge values one level down, where they fit the type: filters that match nothing must not echo them whole.
  const objectFields = TOOLS.flatMap((tool) =>
    Object.entries(tool.input.shape).flatMap(([field, schema]) => {
      const shape = objectShape(schema as never);
      return shape ? Object.keys(shape).map((key) => [tool.name, field, key] as const) : [];
    }),
  );
  it.each(objectFields)('%s with %s.%s holding a huge value', async (tool, field, key) => {
    for (const value of [HUGE, [HUGE]]) {
      const r = await h.call(tool, { [field]: { [key]: value } });
      expect(size(r)).toBeLessThanOrEqual(MAX_ANSWER);
    }
  });

  it.each(TOOLS.map((t) => t.name))('%s with a huge unknown argument name and value', async (tool) => {
    const r = await h.call(tool, { [HUGE]: HUGE });
    expect(r.isError).toBe(true);
    expect(size(r)).toBeLessThanOrEqual(MAX_ANSWER);
  });

  const entry = (fields: Record<string, unknown>) => ({ overrides: [{ limit: '5', ...fields }], dry_run: true });
  it.each([
    ['a 1 MiB limit', entry({ user_email: 'a@example.com', limit: MIB })],
    ['a 1 MiB limit as text', entry({ user_email: 'a@example.com', limit: `${MIB}.5` })],
    ['a 1 MiB email', entry({ user_email: `${MIB}@example.com` })],
    ['a 1 MiB service account', entry({ service_account_name: MIB })],
    ['a 1 MiB email and service account', entry({ user_email: MIB, service_account_name: MIB })],
    ['a 1 MiB resource', entry({ user_email: 'a@example.com', resource: MIB })],
    ['a 1 MiB period', entry({ user_email: 'a@example.com', period: MIB })],
  ])('set_budget_overrides refuses %s, echoing it cut', async (_what, args) => {
    const r = await h.call('set_budget_overrides', args);
    expect(size(r)).toBeLessThanOrEqual(MAX_ANSWER);
    // Whether refused as a whole or as an entry, the value is named by its first characters and no more.
    expect(r.text).not.toContain('9'.repeat(81));
    expect(JSON.stringify(r.structured ?? {})).not.toContain('9'.repeat(81));
    if (r.structured) expect(r.structured.entries[0].status).toBe('invalid');
  });

  // Ten kinds of refusal, 500 entries each, interleaved; every entry's value differs, and many are long.
  const LONG = 'z'.repeat(1000);
  const KINDS: Array<[RegExp, (i: number) => Record<string, unknown>]> = [
    [/is not a positive integer string/, (i) => ({ user_email: `${LONG}${i}@example.com`, limit: `${LONG}${i}` })],
    [/has leading zeros/, (i) => ({ user_email: `a${i}@example.com`, limit: `0${i + 1}` })],
    [/has more than 18 digits/, (i) => ({ user_email: `a${i}@example.com`, limit: `${'9'.repeat(30)}${i}` })],
    [/must be a positive integer/, (i) => ({ user_email: `a${i}@example.com`, limit: `-${i + 1}` })],
    [/is not a whole number/, (i) => ({ user_email: `a${i}@example.com`, limit: i + 0.5 })],
    [/above 2\^53-1/, (i) => ({ user_email: `a${i}@example.com`, limit: 1e20 + i * 1e6 })],
    [
      /exactly one of user_email or service_account_name/,
      (i) => ({ user_email: `a${i}@x`, service_account_name: `${LONG}${i}`, limit: '5' }),
    ],
    [
      /does not match the billing plan/,
      (i) => ({ user_email: `${LONG}${i}@example.com`, limit: '5', resource: 'usd' }),
    ],
    [/is not a service-account name/, (i) => ({ service_account_name: `bad name ${LONG}${i}`, limit: '5' })],
    [/user is not in the organization/, (i) => ({ user_email: `ghost${i}@northwind.example`, limit: '5' })],
  ];
  const refusedEntries = Array.from({ length: 5000 }, (_, i) => KINDS[i % KINDS.length]![1](i));

  it.each([true, false])(
    'set_budget_overrides with 5,000 refused entries of ten kinds (dry run %s): small, every reason counted exactly',
    async (dryRun) => {
      h.sim.clearRequests();
      const r = await h.call('set_budget_overrides', { overrides: refusedEntries, dry_run: dryRun });
      expect(r.isError).toBe(!dryRun);
      expect(size(r)).toBeLessThanOrEqual(MAX_ANSWER);
      expect(Buffer.byteLength(r.text) + Buffer.byteLength(JSON.stringify(r.structured))).toBeLessThanOrEqual(
        MAX_ANSWER,
      );
      expect(r.structured.counts).toEqual({ invalid: 4500, unknown_identity: 500 });
      const groups = r.structured.refused as Array<{ reason: string; count: number; first: string[] }>;
      for (const [reason] of KINDS) {
        const matching = groups.filter((g) => reason.test(g.reason));
        expect(
          matching.map((g) => g.count),
          String(reason),
        ).toEqual([500]);
        // Each group names its first entries by index, cut like any echoed value.
        const kind = KINDS.findIndex(([r]) => r === reason);
        expect(matching[0]!.first.map((f) => Number(/^#(\d+) /.exec(f)![1]))).toEqual([kind, kind + 10, kind + 20]);
        expect(r.text).toMatch(new RegExp(`500 refused: [^\\n]*${reason.source}[^\\n]*and 497 more`));
      }
      expect(groups.reduce((n, g) => n + g.count, 0)).toBe(5000);
      expect(r.structured.entries.length).toBeLessThan(5000);
      expect(r.text).toContain(`${(5000 - r.structured.entries.length).toLocaleString('en-US')} entries not listed`);
      expect(r.text + JSON.stringify(r.structured)).not.toContain('z'.repeat(81));
      expect(requestsTo(h.sim, 'set-user-budget-overrides')).toEqual([]);
    },
    60_000,
  );

  it('a refused limit is named by its first 79 characters and an ellipsis, in text and structured content', async () => {
    const r = await h.call('set_budget_overrides', entry({ user_email: `${MIB}@example.com`, limit: MIB }));
    const [shown] = r.structured.entries;
    expect(shown.user).toBe(`${'9'.repeat(79)}…`);
    expect(shown.reason).toContain(`'${'9'.repeat(79)}…'`);
    expect(r.text).toContain(`${'9'.repeat(79)}…`);
  });
});
