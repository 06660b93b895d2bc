import { Directory } from '../../directory/directory.js';
import type { DirectorySnapshot } from '../../directory/directory-row.js';
import type { DirectoryState } from '../../directory/directory-state.js';
import type { Logger } from '../../logger.js';
import type { OrgDirectory, OrgView } from '../../directory/org-view.js';
import { dayFromMs, parseIsoDay } from '../../util/utc-date.js';
import type { LazyHistory } from './runtime-history.js';

/**
 * The directory as the tools see it. With a history store, each version the directory takes is recorded there,
 * dated, and a range is answered with the memberships of each of its days; without one, today's directory stands
 * for every day, and the answer says so (`basis: 'today'`).
 */
export function orgDirectory(
  state: DirectoryState,
  history: LazyHistory | undefined,
  options: { minGroupSize: number; log: Logger; now?: () => number },
): OrgDirectory {
  const now = options.now ?? Date.now;
  let version = 0;
  let recorded: Promise<void> = Promise.resolve();
  const views = new Map<string, Directory>();
  let since: { version: number; kept: Promise<unknown> } | undefined;
  const record = (snapshot: DirectorySnapshot) => {
    recorded = recorded.then(async () => {
      const store = (await history?.open())?.source.store;
      if (!store) return;
      try {
        await store.recordDirectory(snapshot, dayFromMs(now()));
        version++;
        views.clear();
      } catch (error) {
        options.log.warn('the directory could not be kept in the history store', { error: (error as Error).message });
      }
    });
  };
  state.onChange(record);
  const first = state.currentSnapshot();
  if (first) record(first);
  return {
    minGroupSize: options.minGroupSize,
    settled: () => recorded,
    async over(start: string, end: string): Promise<OrgView | undefined> {
      const today = state.current();
      if (!today) return undefined;
      await recorded;
      const store = (await history?.open())?.source.store;
      // Read once per version the directory took: every question by team asks.
      if (store && version > 0 && since?.version !== version) {
        const kept = store.directorySince().catch((error: unknown) => {
          since = undefined;
          throw error;
        });
        since = { version, kept };
      }
      const kept = store && version > 0 ? await since!.kept : undefined;
      const base = { source: today.source, ...(state.problem ? { problem: state.problem } : {}) };
      if (!store || !kept) return { directory: today, basis: 'today', ...base };
      const key = `${start}|${end}|${version}`;
      let directory = views.get(key);
      if (!directory) {
        const rows = await store.membershipRows(parseIsoDay(start)!, parseIsoDay(end)!);
        views.set(key, (directory = new Directory(rows, today.source)));
        if (views.size > 64) views.delete(views.keys().next().value!);
      }
      return { directory, basis: 'dated', ...base };
    },
  };
}
