/**
 * Exact sums in numbered cells at one scale (decimals): doubles while every step is a safe integer, the rest of a
 * cell in a BigInt beside it. A team's billed USD at 10 decimals over 50,000 people passes 2^53; most cells never do.
 */
export class ExactCells {
  private v = new Float64Array(64);
  private readonly big = new Map<number, bigint>();
  /** The decimals of every cell: raised (all cells multiplied) when a finer value comes. */
  scale = 0;

  add(cell: number, value: number | string, scale: number): void {
    if (scale > this.scale) this.rescale(scale);
    if (cell >= this.v.length) {
      const grown = new Float64Array(Math.max(cell + 1, this.v.length * 2));
      grown.set(this.v);
      this.v = grown;
    }
    const k = 10 ** (this.scale - scale);
    if (typeof value === 'number') {
      const term = value * k;
      const next = this.v[cell]! + term;
      if (Number.isSafeInteger(term) && Number.isSafeInteger(next)) {
        this.v[cell] = next;
        return;
      }
    }
    this.big.set(cell, (this.big.get(cell) ?? 0n) + BigInt(value) * 10n ** BigInt(this.scale - scale));
  }

  get(cell: number): bigint {
    return BigInt(this.v[cell] ?? 0) + (this.big.get(cell) ?? 0n);
  }

  private rescale(to: number): void {
    const k = 10 ** (to - this.scale);
    const kBig = 10n ** BigInt(to - this.scale);
    for (const [cell, units] of this.big) this.big.set(cell, units * kBig);
    for (let i = 0; i < this.v.length; i++) {
      if (!this.v[i]) continue;
      const next = this.v[i]! * k;
      if (Number.isSafeInteger(next)) this.v[i] = next;
      else {
        this.big.set(i, (this.big.get(i) ?? 0n) + BigInt(this.v[i]!) * kBig);
        this.v[i] = 0;
      }
    }
    this.scale = to;
  }
}
