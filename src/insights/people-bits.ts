/**
 * Sets of people as bitsets over one numbering of their emails: the union of a week's daily lists, or who is
 * new, are word operations instead of string lookups, and a day's set at 50,000 people is 6 KB.
 */
export type Bits = Uint32Array;

/** The numbering: each lower-cased email its bit. */
export class People {
  private readonly index = new Map<string, number>();

  get size(): number {
    return this.index.size;
  }

  /** Each bit's email (lower-cased), by bit. */
  emails(): string[] {
    const out: string[] = [];
    for (const [email, i] of this.index) out[i] = email;
    return out;
  }

  /** The set of the people (rows with a user_email) in `rows`: service accounts are left out. */
  bitsOf(rows: ReadonlyArray<{ user_email?: string }>): Bits {
    // Room for everyone numbered so far and everyone these rows may add: one pass, one lower-casing a row.
    const bits = new Uint32Array(words(this.size + rows.length));
    for (const r of rows) {
      if (r.user_email === undefined) continue;
      const email = r.user_email.toLowerCase();
      let i = this.index.get(email);
      if (i === undefined) this.index.set(email, (i = this.index.size));
      bits[i >>> 5]! |= 1 << (i & 31);
    }
    return bits.slice(0, words(this.size));
  }

  /** Each store number's bit (+1; 0: not yet known, -1: not a person): one array lookup per digest entry. */
  private byNumber = new Int32Array(0);

  /** The store numbers not known yet, to be named (`name`) before `bitsOfNumbers`. */
  unknown(ids: readonly number[]): number[] {
    return ids.filter((id) => !(this.byNumber[id] ?? 0));
  }

  /** Tells the numbering who a store number is: `u:<email>` or `s:<account>` (not a person). */
  name(id: number, name: string): void {
    if (id >= this.byNumber.length) {
      const grown = new Int32Array(Math.max(id + 1, this.byNumber.length * 2));
      grown.set(this.byNumber);
      this.byNumber = grown;
    }
    if (!name.startsWith('u:')) {
      this.byNumber[id] = -1;
      return;
    }
    const email = name.slice(2).toLowerCase();
    let i = this.index.get(email);
    if (i === undefined) this.index.set(email, (i = this.index.size));
    this.byNumber[id] = i + 1;
  }

  /** The set of the people among store numbers (all named): service accounts are left out. */
  bitsOfNumbers(lists: ReadonlyArray<readonly number[]>): Bits {
    const bits = new Uint32Array(words(this.size));
    for (const ids of lists)
      for (const id of ids) {
        const i = this.byNumber[id]! - 1;
        if (i >= 0) bits[i >>> 5]! |= 1 << (i & 31);
      }
    return bits;
  }
}

export const words = (size: number) => (size + 31) >>> 5;

/** The people in any of `sets`: a new set. */
export function union(sets: readonly Bits[]): Bits {
  return unite(new Uint32Array(Math.max(0, ...sets.map((s) => s.length))), sets);
}

/** `into` |= each of `sets` (shorter sets: the people numbered after them are not in them). */
export function unite(into: Bits, sets: readonly Bits[]): Bits {
  for (const s of sets) for (let w = 0; w < s.length; w++) into[w]! |= s[w]!;
  return into;
}

const at = (s: Bits | undefined, w: number) => (s && w < s.length ? s[w]! : 0);

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** How many people `a` holds that `and` holds too and `not` does not (each optional). */
export function count(a: Bits, and?: Bits, not?: Bits): number {
  let n = 0;
  for (let w = 0; w < a.length; w++) {
    let x = a[w]!;
    if (and) x &= at(and, w);
    if (not) x &= ~at(not, w);
    n += popcount(x >>> 0);
  }
  return n;
}

/** `a` without the people of `not`: a new set. */
export function minus(a: Bits, not: Bits): Bits {
  const out = new Uint32Array(a.length);
  for (let w = 0; w < a.length; w++) out[w] = a[w]! & ~at(not, w);
  return out;
}
