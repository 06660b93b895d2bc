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

/** Blocks done of total per rate group, requests so far, and the time left (the slowest group's). */
export class SyncProgress {
  private readonly groups = new Map<RateGroup, { total: number; done: number; requests: number; started: number }>();
  private last = 0;

  constructor(
    plan: Map<RateGroup, SyncTask[]>,
    private readonly emit: ((line: ProgressLine) => void) | undefined,
    /** Requests a minute the group may make. */
    private readonly perMinute: (group: RateGroup) => number,
  ) {
    for (const [group, tasks] of plan)
      this.groups.set(group, { total: tasks.length, done: 0, requests: 0, started: Date.now() });
  }

  done(group: RateGroup, _task: SyncTask, requests: number): void {
    const g = this.groups.get(group)!;
    g.done++;
    g.requests += requests;
    if (Date.now() - this.last >= EVERY_MS) this.report();
  }

  finish(): void {
    this.report();
  }

  private report(): void {
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
      // Blocks left at the pace so far, and never less than their requests need at the group's rate.
      const rest = g.total - g.done;
      const byRate = ((g.requests / Math.max(1, g.done)) * rest * 60) / this.perMinute(group);
      const byPace = ((Date.now() - g.started) / 1000 / Math.max(1, g.done)) * rest;
      const groupLeft = g.done === 0 ? (g.total === 0 ? 0 : null) : Math.max(byRate, byPace);
      left = left === null || groupLeft === null ? null : Math.max(left, groupLeft);
      parts.push(`${group} ${g.done}/${g.total}`);
    }
    const eta = left === null ? 'time left not known yet' : done === total ? 'done' : `~${duration(left)} left`;
    this.emit({
      text: `sync: ${done}/${total} blocks (${parts.join(', ')}), ${requests} requests, ${eta}`,
      done,
      total,
      requests,
      secondsLeft: left,
    });
  }
}
