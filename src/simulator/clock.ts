/** The simulator's wall clock: real time by default, or frozen at a set instant so tests control "today". */
export class SimClock {
  private offsetMs = 0;
  private frozenAt: number | undefined;

  constructor(start?: { now?: number | string; frozen?: boolean }) {
    if (start?.now !== undefined) this.set(start.now, start.frozen ?? true);
  }

  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  set(now: number | string, frozen = true): void {
    const ms = typeof now === 'string' ? Date.parse(now) : now;
    if (!Number.isFinite(ms)) throw new Error(`Not a valid instant: ${String(now)}`);
    this.frozenAt = frozen ? ms : undefined;
    this.offsetMs = frozen ? 0 : ms - Date.now();
  }

  advance(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
  }
}
