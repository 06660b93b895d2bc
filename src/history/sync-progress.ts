import type { RateGroup } from '../contract/limits.js';
import type { SyncTask } from './sync-plan.js';

export interface ProgressLine {
  text: string;
  done: number;
  total: number;
  requests: number;
  /** Seconds left, estimated from the pace so far; null before the first block. */
  secondsLeft: number | null;
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
  }

  /** A task ended: `stored` blocks of it are in (0 when it failed; it is fetched again next time). */
  done(group: RateGroup, _task: SyncTask, requests: number, stored: number): void {
    const g = this.groups.get(group)!;
    g.tried++;
    g.done += stored;
    g.requests += requests;
    if (Date.now() - this.last >= EVERY_MS) this.report();
  }

  /** The last line: done, or how many requests failed. */
  finish(failed = 0): void {
    this.report(failed);
  }

  private report(failed?: number): void {
    this.last = Date.now();
    if (!this.emit) return;
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
