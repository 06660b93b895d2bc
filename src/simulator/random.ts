/** Deterministic hashing, so any (identity, day, stream) draw is reproducible without storing it. */

/** murmur3's 32-bit finaliser. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

export function seedFrom(seed: string | number): number {
  const text = String(seed);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

/** The hash of one (seed, a, b) cell, such as an identity's day; draws of that cell derive from it. */
export function cellOf(seed: number, a: number, b: number): number {
  return mix32(seed ^ mix32(Math.imul(a, 0x9e3779b1) + mix32(b + 0x7f4a7c15)));
}

/** A uniform draw in [0, 1) for one stream of a cell. */
export function drawAt(cell: number, stream: number): number {
  return mix32(cell ^ Math.imul(stream + 1, 0x85ebca77)) / 4_294_967_296;
}

/** A uniform draw in [0, 1) keyed by (seed, a, b, stream). */
export function draw(seed: number, a: number, b: number, stream: number): number {
  return drawAt(cellOf(seed, a, b), stream);
}

/** A sequential generator (mulberry32) for building the organization once. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  /** Picks an index with probability proportional to its weight. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0);
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] as number;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }
}
