import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirectoryState } from '../../src/directory/directory-state.js';
import { parseGroupBy } from '../../src/directory/group-by.js';
import type { HistoryStore } from '../../src/history/store/history-store.js';
import { openHistory } from '../../src/history/store/open-history.js';
import { orgDirectory } from '../../src/history/serving/org-directory.js';
import type { LazyHistory } from '../../src/history/serving/runtime-history.js';
import { createLogger } from '../../src/logger.js';
import { dayToMs, parseIsoDay } from '../../src/util/utc-date.js';

const dir = mkdtempSync(join(tmpdir(), 'org-directory-'));
const stores: HistoryStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A store as the runtime hands it over (opened on first use). */
async function lazy(name: string): Promise<LazyHistory> {
  const store = (await openHistory({ kind: 'sqlite', path: join(dir, `${name}.sqlite`) }, name))!;
  stores.push(store);
  return { open: async () => ({ source: { store } }) as never, close: async () => {} } as unknown as LazyHistory;
}

const log = createLogger(
  'error',
  (t) => t,
  () => {},
);
const team = parseGroupBy('team', []);

describe('the directory as the tools see it, with a history store', () => {
  it('answers a month with each day’s teams: a move recorded on the 15th splits it', async () => {
    const file = join(dir, 'org.csv');
    writeFileSync(file, 'user_email,team\nann@x.com,Sales\nbo@x.com,Eng\n');
    let now = dayToMs(parseIsoDay('2026-10-01')!);
    const state = new DirectoryState(log);
    state.load(file);
    const org = orgDirectory(state, await lazy('moves'), { minGroupSize: 5, log, now: () => now });
    // Recorded on the 1st: it holds for every earlier day too.
    const first = (await org.over('2026-09-01', '2026-09-30'))!;
    expect(first.basis).toBe('dated');
    expect(first.directory.groupsOn('u:ann@x.com', '2026-09-10', team)).toEqual(['Sales']);

    now = dayToMs(parseIsoDay('2026-10-15')!);
    writeFileSync(file, 'user_email,team\nann@x.com,Eng\nbo@x.com,Eng\n');
    state.load(file);
    const october = (await org.over('2026-10-01', '2026-10-31'))!;
    expect(october.directory.changeDays('2026-10-01', '2026-10-31')).toEqual(['2026-10-15']);
    expect(october.directory.groupsOn('u:ann@x.com', '2026-10-14', team)).toEqual(['Sales']);
    expect(october.directory.groupsOn('u:ann@x.com', '2026-10-15', team)).toEqual(['Eng']);
    expect(october.directory.primaryGroupOn('u:bo@x.com', '2026-10-02', team)).toBe('Eng');
  });

  it("stands today's directory for every day without a store, and says so", async () => {
    const file = join(dir, 'plain.csv');
    writeFileSync(file, 'user_email,team\nann@x.com,Sales\n');
    const state = new DirectoryState(log);
    state.load(file);
    const view = (await orgDirectory(state, undefined, { minGroupSize: 5, log }).over('2026-10-01', '2026-10-31'))!;
    expect(view.basis).toBe('today');
    expect(view.source).toMatchObject({ kind: 'file', name: file });
  });
});
