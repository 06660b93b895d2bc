import { sumDecimals, toBigInt, fromBigInt, type BigCount } from './numbers.js';

/**
 * An exact sum fed one figure at a time, without keeping them: counts add up as doubles while every step is a
 * safe integer, then as a BigInt; decimal strings are kept and summed exactly at the end (sumDecimals). Grouped
 * answers add tens of thousands of figures per group: a list of them per group was most of their time.
 */
export class RunningSum {
  private n = 0;
  private big: bigint | undefined;
  private texts: string[] | undefined;

  add(value: number | string): void {
    if (typeof value === 'string') {
      (this.texts ??= []).push(value);
      return;
    }
    if (this.big !== undefined) {
      this.big += toBigInt(value);
      return;
    }
    const next = this.n + value;
    if (Number.isSafeInteger(value) && Number.isSafeInteger(next)) this.n = next;
    else this.big = BigInt(this.n) + toBigInt(value);
  }

  /** Another sum's figures added to this one's. */
  merge(other: RunningSum): void {
    if (other.texts) (this.texts ??= []).push(...other.texts);
    if (other.big !== undefined) this.big = (this.big ?? BigInt(this.n)) + other.big;
    else this.add(other.n);
  }

  /** The sum: a decimal string when decimals were added, else a count (a string beyond 2^53). */
  value(): number | string {
    const count: BigCount = this.big !== undefined ? fromBigInt(this.big) : this.n;
    if (!this.texts) return count;
    return sumDecimals(count === 0 ? this.texts : [...this.texts, String(count)]);
  }
}
