import { RATE_LIMITS } from '../../../src/contract/limits.js';
import { earliestDay } from '../../../src/domain/dates.js';
import { monthOf } from '../../../src/history/store/store-rules.js';
import { buildSpans } from '../../../src/history/store/derived/spans.js';
import { buildTrailingSpans } from '../../../src/history/sync/trailing-spans.js';
import { backfillDays, backfillMonths, printBackfill, type BackfillRow } from './history-backfill.js';
import { QUESTIONED, replicate } from './history-replicate.js';
import { profiled } from '../cpu-profile.js';
import { DAY_MS, historyRig, postgresCopy, type HistoryRig } from './history-fixture.js';
import { bytesOnDisk } from './history-sync.js';
import { measurePacing, printPacing, type Pace } from './history-pacing.js';
import {
  printTimed,
  quantile,
  questionSets,
  syncedSets,
  timeQuestions,
  type QuestionSet,
  type Timed,
} from './history-queries.js';

type Print = (line: string) => void;
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** The questions of the issue on one store: on SQLite, then the same on PostgreSQL. */
async function queries(rig: HistoryRig, sets: QuestionSet[]): Promise<Timed[][]> {
  // One unmeasured question first: the first read opens the file and fills the page cache.
  const warmUp = [{ ...sets[0]!, questions: sets[0]!.questions.slice(0, 1) }];
  await timeQuestions(rig, warmUp, 1);
  const out = [await profiled('history-sqlite', () => timeQuestions(rig, sets, 1))];
  if (process.env.BENCH_POSTGRES !== '0') {
    // What the questions read (and its spans): copying all of a 90-day store takes long.
    const pg = await postgresCopy(rig, POSTGRES, QUESTIONED);
    try {
      await timeQuestions(pg, warmUp, 1);
      out.push(await timeQuestions(pg, sets, 1));
    } finally {
      await pg.close();
    }
  }
  return out;
}

/** The oldest whole month the sync keeps within the upstream's two years. */
function firstMonth(today: number): number {
  const earliest = earliestDay(today);
  const month = monthOf(earliest);
  return month.start < earliest ? month.end + 1 : month.start;
}

/** How much one size syncs for real; the rest of 90 days and 24 months is scaled (requests) or copied (store). */
interface Plan {
  users: number;
  days: number;
  months: number;
}

/**
 * `BENCH_HISTORY_SIZES=10000,50000` picks the sizes. Default 10,000: at 50,000 people a run takes over an hour
 * on two cores, so it is asked for by name (the README's 50,000 figures come from that run).
 */
function plans(quick: boolean): Plan[] {
  const sizes = (process.env.BENCH_HISTORY_SIZES ?? '10000').split(',').map(Number);
  return sizes.map((users) =>
    quick
      ? { users, days: 7, months: 1 }
      : users <= 10_000
        ? { users, days: 90, months: 3 }
        : { users, days: 7, months: 1 },
  );
}

/**
 * Issue 23's figures against the simulator: backfill requests per rate group and the time they take at
 * the documented limits, the pace of a sync at those limits, answers from the store (SQLite and
 * PostgreSQL), the store's size and the sync's peak RSS.
 */
export async function benchHistory(print: Print): Promise<void> {
  const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const backfill: BackfillRow[] = [];
  // Printed as soon as measured: a long run stopped half-way still shows what it got.
  const say = print;
  print('history store (issue 23), against the simulator:');
  for (const plan of plans(quick)) {
    const { users } = plan;
    const people = `${users.toLocaleString('en-US')} people`;
    // BENCH_HISTORY_FROM=<file>: the questions only, on a store an earlier run kept (BENCH_HISTORY_KEEP=1).
    const from = process.env.BENCH_HISTORY_FROM;
    const rig = await historyRig({ users, rateLimit: false, file: from });
    try {
      if (from) {
        rig.sim.configure({ advance_ms: DAY_MS });
        await answers(rig, users, quick, say, false);
        continue;
      }
      const days = await backfillDays(rig, users, plan.days);
      backfill.push(...days);
      printBackfill(print, days);
      const size = bytesOnDisk(rig.file!);
      const perTenK = (size / (users / 10_000)) * (90 / plan.days);
      const months = await backfillMonths(rig, users, plan.months);
      backfill.push(months);
      printBackfill(print, [months]);
      const rss = Math.max(days[0]!.peakRssMb, days[1]!.peakRssMb, months.peakRssMb);
      say(
        `  store at ${people}: ${mb(size)} for ${plan.days} days ` +
          `(${mb(perTenK)} per 10,000 people per 90 days, ${plan.days === 90 ? 'measured' : 'derived'}); ` +
          `sync peak RSS in a process of its own (measured): days ${days[0]!.peakRssMb.toFixed(0)} MB, ` +
          `increment ${days[1]!.peakRssMb.toFixed(0)} MB, months ${months.peakRssMb.toFixed(0)} MB ` +
          `(goal <= 200 MB: ${rss <= 200 ? 'met' : 'not met'})`,
      );
      // BENCH_HISTORY_QUERIES=0: the backfill figures only.
      if (process.env.BENCH_HISTORY_QUERIES === '0') continue;
      await answers(rig, users, quick, say, true, plan);
    } finally {
      await rig.close();
    }
  }
  // BENCH_HISTORY_PACING=0 leaves out the minute at the documented limits.
  const pace: Pace | undefined =
    process.env.BENCH_HISTORY_PACING === '0' ? undefined : await measurePacing(10_000, quick ? 20 : 60);
  const measured = pace
    ? (Object.fromEntries(
        Object.entries(pace.perMinute).map(([g, n]) => [g, n || RATE_LIMITS[g as keyof typeof RATE_LIMITS].perMinute]),
      ) as Pace['perMinute'])
    : undefined;
  if (pace) printPacing(print, 10_000, pace);
  print('  all backfills together' + (pace ? ', with the time at the pace the paced run kept:' : ':'));
  printBackfill(print, backfill, measured);
}

/**
 * The questions timed on the rig's store: filled to 90 days and 24 months first (`fill`: by copying what a sync
 * stored, see replicate), its spans built, on SQLite and on PostgreSQL.
 */
async function answers(
  rig: HistoryRig,
  users: number,
  quick: boolean,
  say: Print,
  fill: boolean,
  plan: { days: number; months: number } = { days: 90, months: 24 },
) {
  const people = `${users.toLocaleString('en-US')} people`;
  // BENCH_HISTORY_REPLICATE=0: only questions inside the synced days, their times scaled to 90 days (derived).
  // --quick copies nothing unless BENCH_HISTORY_REPLICATE=1: it times the week it synced.
  const copy = fill && (process.env.BENCH_HISTORY_REPLICATE ?? (quick ? '0' : '1')) !== '0';
  // Above 10,000 people only what the questions read is copied (all of it would be some 20 GB at 50,000).
  const whole = users <= 10_000;
  const copied = copy ? await replicate(rig, 90, 24, whole ? undefined : QUESTIONED) : 0;
  // What a sync does after storing days: sums them into spans (the copied days have none yet).
  const t0 = performance.now();
  const db = rig.history.source.store.db;
  const spans =
    (await buildSpans(db)) + (await buildTrailingSpans(rig.history.source.store, rig.client.days(), rig.client.now()));
  say(
    `  runs of days and months summed from the stored ones (spans): ${spans} in ${((performance.now() - t0) / 1000).toFixed(1)} s (measured)` +
      (copy && whole ? `; the store, 90 days and 24 months with them: ${mb(bytesOnDisk(rig.file!))}` : ''),
  );
  const known = rig.client.days();
  const sets =
    copy || !fill
      ? questionSets(known.published, firstMonth(known.today), quick)
      : syncedSets(known.published, plan.days);
  const [sqlite, pg] = await queries(rig, sets);
  say(
    `  answers from the store at ${people}, client.list, measured` +
      (copied
        ? ` (the store filled to 90 days and 24 months by copying the ${plan.days} synced days and ${plan.months} months: ${copied} blocks):`
        : fill
          ? ` (the store holds the synced days and months only):`
          : ` (a store kept by an earlier run):`),
  );
  printTimed(say, 'SQLite', sqlite!);
  if (pg) printTimed(say, 'PostgreSQL', pg);
  if (!copy && fill) {
    const first = sqlite![0]!;
    const f = 90 / plan.days;
    say(
      `    derived for 90 days (x ${f.toFixed(1)}, the read is linear in the rows it reads): SQLite p50 ` +
        `${(quantile(first.ms, 0.5) * f).toFixed(0)} ms, p99 ${(quantile(first.ms, 0.99) * f).toFixed(0)} ms`,
    );
  }
}
