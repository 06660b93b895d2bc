import type { WarmClock } from '../../src/warm/daily-schedule.js';

/** A clock that moves only when a test fires its next timer. */
export class ManualClock implements WarmClock {
  timers: Array<{ run: () => void; at: number }> = [];
  constructor(public t: number) {}
  now = () => this.t;
  setTimeout = (run: () => void, ms: number) => {
    const timer = { run, at: this.t + ms };
    this.timers.push(timer);
    return timer;
  };
  clearTimeout = (handle: unknown) => {
    this.timers = this.timers.filter((t) => t !== handle);
  };
  fire(): void {
    const next = this.timers.shift()!;
    this.t = next.at;
    next.run();
  }
}
