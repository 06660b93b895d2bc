import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createAuditSink,
  reportUnfinishedWrites,
  unfinishedChunks,
  type AuditChange,
} from '../../src/privacy/audit.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oam-audit-'));
  path = join(dir, 'audit.log');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const change = (identity: string, after: string): AuditChange => ({
  identity,
  kind: 'user',
  resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
  period: 'BUDGET_PERIOD_MONTHLY',
  before: null,
  after,
});
const full = new Pseudonymizer('full', 'k');
const lines = () =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('the audit sink', () => {
  it('records intent and outcome of a chunk under one id, to stderr and the file, pseudonymised when asked', () => {
    const stderr: string[] = [];
    const sink = createAuditSink(new Pseudonymizer('pseudonymous', 'k'), path, (t) => stderr.push(t));
    sink({
      phase: 'intent',
      chunk: 'c0ffee',
      changes: [change('ada@x.io', '10'), { ...change('ci-bot', ''), kind: 'service_account', before: '10' }],
    });
    sink({
      phase: 'outcome',
      chunk: 'c0ffee',
      records: [
        { ...change('ada@x.io', '10'), outcome: 'applied' },
        { ...change('ci-bot', ''), kind: 'service_account', before: '10', outcome: 'failed', reason: 'x' },
      ],
    });
    const [i1, i2, o1, o2] = lines();
    expect(Object.keys(i1).slice(0, 3)).toEqual(['time', 'event', 'chunk']);
    expect(i1).toMatchObject({
      event: 'budget_override_intent',
      chunk: 'c0ffee',
      identity: expect.stringMatching(/^user-[0-9a-f]{12}@x\.io$/),
      before: null,
      after: '10',
    });
    expect(i1).not.toHaveProperty('outcome');
    expect(i2).toMatchObject({
      event: 'budget_override_intent',
      chunk: 'c0ffee',
      identity: 'ci-bot',
      before: '10',
      after: '',
    });
    expect(o1).toMatchObject({ event: 'budget_override', chunk: 'c0ffee', identity: i1.identity, outcome: 'applied' });
    expect(o2).toMatchObject({
      event: 'budget_override',
      chunk: 'c0ffee',
      identity: 'ci-bot',
      outcome: 'failed',
      reason: 'x',
    });
    expect(i1.time).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(stderr.join('')).toBe(readFileSync(path, 'utf8'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('pseudonymises emails quoted in the reason too', () => {
    const out: string[] = [];
    createAuditSink(new Pseudonymizer('pseudonymous', 'k'), undefined, (t) => out.push(t))({
      phase: 'outcome',
      chunk: 'ab',
      records: [{ ...change('ada@x.io', '1'), outcome: 'failed', reason: "upstream: user 'ada@x.io' is not a member" }],
    });
    expect(out.join('')).not.toContain('ada@x.io');
    expect(JSON.parse(out[0]!).reason).toMatch(/user 'user-[0-9a-f]{12}@x\.io' is not a member/);
  });

  it('starts on a new line when an earlier run was killed mid-line', () => {
    writeFileSync(path, '{"time":"2026-01-01T00:00:00.000Z","event":"budget_override_intent","chunk":"aa","ident');
    createAuditSink(full, path, () => {})({ phase: 'intent', chunk: 'bb', changes: [change('ada@x.io', '5')] });
    expect(JSON.parse(readFileSync(path, 'utf8').split('\n')[1]!)).toMatchObject({ chunk: 'bb', identity: 'ada@x.io' });
  });
});

describe('finding writes without an outcome', () => {
  it('pairs intents with outcomes by chunk id, and names only the chunk left open', async () => {
    const sink = createAuditSink(full, path, () => {});
    sink({ phase: 'intent', chunk: '0001', changes: [change('a@x.io', '1'), change('b@x.io', '2')] });
    sink({
      phase: 'outcome',
      chunk: '0001',
      records: [
        { ...change('a@x.io', '1'), outcome: 'applied' },
        { ...change('b@x.io', '2'), outcome: 'applied' },
      ],
    });
    sink({
      phase: 'intent',
      chunk: '0002',
      changes: [change('c@x.io', '3'), change('d@x.io', '4'), change('e@x.io', '5')],
    });
    sink({ phase: 'intent', chunk: '0003', changes: [change('f@x.io', '6')] });
    sink({
      phase: 'outcome',
      chunk: '0003',
      records: [{ ...change('f@x.io', '6'), outcome: 'unknown', reason: 'timeout' }],
    });
    const open = await unfinishedChunks(path);
    expect(open).toEqual([{ chunk: '0002', changes: 3, time: lines()[4].time }]);
  });

  it('reads an old log without chunk ids, and a missing or empty file, as nothing open', async () => {
    expect(await unfinishedChunks(path)).toEqual([]);
    writeFileSync(path, '');
    expect(await unfinishedChunks(path)).toEqual([]);
    appendFileSync(
      path,
      '{"time":"2026-01-01T00:00:00.000Z","event":"budget_override","identity":"a@x.io","outcome":"applied"}\nnot json at all\n',
    );
    expect(await unfinishedChunks(path)).toEqual([]);
  });

  it('says so once, in one stderr line naming the chunk, its time and get_budget_overrides; the next start is quiet', async () => {
    const sink = createAuditSink(full, path, () => {});
    sink({ phase: 'intent', chunk: 'deadbeef', changes: [change('a@x.io', '1'), change('b@x.io', '2')] });
    const time = lines()[0].time as string;
    const said: string[] = [];
    await reportUnfinishedWrites(path, (t) => said.push(t));
    expect(said).toHaveLength(1);
    expect(said[0]!.trim().split('\n')).toHaveLength(1);
    expect(said[0]).toContain('deadbeef');
    expect(said[0]).toContain(time);
    expect(said[0]).toMatch(/may or may not have been applied/);
    expect(said[0]).toMatch(/get_budget_overrides/);
    expect(lines().at(-1)).toMatchObject({ event: 'budget_override_unfinished', chunks: ['deadbeef'] });
    const again: string[] = [];
    await reportUnfinishedWrites(path, (t) => again.push(t));
    expect(again).toEqual([]);
  });

  it('says nothing when every intent has its outcome', async () => {
    const sink = createAuditSink(full, path, () => {});
    sink({ phase: 'intent', chunk: '0a', changes: [change('a@x.io', '1')] });
    sink({
      phase: 'outcome',
      chunk: '0a',
      records: [{ ...change('a@x.io', '1'), outcome: 'failed', reason: 'refused' }],
    });
    const said: string[] = [];
    await reportUnfinishedWrites(path, (t) => said.push(t));
    expect(said).toEqual([]);
    expect(lines()).toHaveLength(2);
  });
});
