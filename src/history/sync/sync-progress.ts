import type { RateGroup } from '../../contract/limits.js';
import type { SyncTask } from './sync-plan.js';
import { syncProgressed } from '../../telemetry/sync-status.js';

export interface ProgressLine {
  text: string;
  done: number;
  total: number;
  requests: number;
  /** Seconds left, estimated from the pace so far; null before the first block. */
  secondsLeft: number | null;
  /** Set on the line said when the questions asked most became answerable from the store (the range blocks in). */
  answerable?: true;
}

const EVERY_MS = 5_000;

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** The blocks a task stores: each day of a window, or its one day or month. */
const blocksOf = (task: SyncTask) => (task.dataset.per === 'window' ? task.days.end - task.days.start + 1 : 1);

interface GroupProgress {
  tasks: number;
  tried: number;
  total: number;
  done: number;
  requests: number;
  started: number;
}

/** Blocks stored of total per rate group, requests so far, and the time left (the slowest group's). */
export class SyncProgress {
  private readonly groups = new Map<RateGroup, GroupProgress>();
  private last = 0;
  private readonly started = Date.now();
  /** The first tasks not yet ended, whether one failed, and the windows of the range blocks among them. */
  private firstLeft = 0;
  private firstFailed = false;
  private readonly windows: number[];
  /** Ms from the start until the first tasks were all in, when they held range blocks. */
  answerableMs: number | undefined;

  constructor(
    plan: Map<RateGroup, SyncTask[]>,
    private readonly emit: ((line: ProgressLine) => void) | undefined,
    /** Requests a minute the group may make. */
    private readonly perMinute: (group: RateGroup) => number,
  ) {
    for (const [group, tasks] of plan)
      this.groups.set(group, {
        tasks: tasks.length,
        tried: 0,
        total: tasks.reduce((n, t) => n + blocksOf(t), 0),
        done: 0,
        requests: 0,
        started: Date.now(),
      });
    const first = [...plan.values()].flat().filter((t) => t.first);
    this.firstLeft = first.length;
    const ranges = first.filter((t) => t.dataset.per === 'range').map((t) => t.days.end - t.days.start + 1);
    this.windows = [...new Set(ranges)].sort((a, b) => a - b);
  }

  /** A task ended: `stored` blocks of it are in (0 when it failed; it is fetched again next time). */
  done(group: RateGroup, task: SyncTask, requests: number, stored: number): void {
    const g = this.groups.get(group)!;
    g.tried++;
    g.done += stored;
    g.requests += requests;
    if (task.first) this.firstDone(stored > 0);
    if (Date.now() - this.last >= EVERY_MS) this.report();
  }

  /** Says, once the range blocks and the daily series' newest window are all in, that their questions answer. */
  private firstDone(ok: boolean): void {
    this.firstLeft--;
    this.firstFailed ||= !ok;
    if (this.firstLeft > 0 || this.firstFailed || this.windows.length === 0) return;
    this.answerableMs = Date.now() - this.started;
    const requests = [...this.groups.values()].reduce((n, g) => n + g.requests, 0);
    const days = this.windows.map(String);
    const last = days.length > 1 ? `${days.slice(0, -1).join(', ')} and ${days.at(-1)}` : days[0];
    this.emit?.({
      text:
        `sync: user activity, credits and cost by user over the last ${last} days, and the daily active user ` +
        `counts, answer from the store now (after ${duration(this.answerableMs / 1000)}, ${requests} ` +
        `request${requests === 1 ? '' : 's'}); the days follow, newest first`,
      done: [...this.groups.values()].reduce((n, g) => n + g.done, 0),
      total: [...this.groups.values()].reduce((n, g) => n + g.total, 0),
      requests,
      secondsLeft: null,
      answerable: true,
    });
  }

  /** The last line: done, or how many requests failed. */
  finish(failed = 0): void {
    this.report(failed);
  }

  private report(failed?: number): void {
    this.last = Date.now();
    let done = 0;
    let total = 0;
    let requests = 0;
    let left: number | null = 0;
    const parts: string[] = [];
    for (const [group, g] of this.groups) {
      done += g.done;
      total += g.total;
      requests += g.requests;
      // Tasks left at the pace so far, and never less than their requests need at the group's rate.
      const rest = g.tasks - g.tried;
      const byRate = ((g.requests / Math.max(1, g.tried)) * rest * 60) / this.perMinute(group);
      const byPace = ((Date.now() - g.started) / 1000 / Math.max(1, g.tried)) * rest;
      const groupLeft = g.tried === 0 ? (g.tasks === 0 ? 0 : null) : Math.max(byRate, byPace);
      left = left === null || groupLeft === null ? null : Math.max(left, groupLeft);
      parts.push(`${group} ${g.done}/${g.total}`);
    }
    // The store's gauges: progress, and a run that stored everything it planned.
    syncProgressed(done, total, failed === 0 && done === total);
    if (!this.emit) return;
    const eta =
      failed !== undefined
        ? failed > 0
          ? `${failed} failed`
          : done === total
            ? 'done'
            : 'stopped'
        : left === null
          ? 'time left not known yet'
          : `~${duration(left)} left`;
    this.emit({
      text: `sync: ${done}/${total} blocks (${parts.join(', ')}), ${requests} request${requests === 1 ? '' : 's'}, ${eta}`,
      done,
      total,
      requests,
      secondsLeft: failed !== undefined ? 0 : left,
    });
  }
}
