/**
 * How many pages a listing took the last time it was walked whole. The API gives no total, so this is
 * what "page 23 of ~101" and a ready time rest on. In memory by default; a persistent store (the disk
 * cache, Redis) can stand in for it behind the same two methods.
 */
export interface PageEstimates {
  get(key: string): number | undefined;
  set(key: string, pages: number): void;
}

/** Estimates kept for the life of the process, bounded so that odd queries cannot grow it without end. */
export class MemoryPageEstimates implements PageEstimates {
  private readonly pages = new Map<string, number>();

  constructor(private readonly max = 1000) {}

  get(key: string): number | undefined {
    return this.pages.get(key);
  }

  set(key: string, pages: number): void {
    this.pages.delete(key);
    this.pages.set(key, pages);
    if (this.pages.size > this.max) this.pages.delete(this.pages.keys().next().value!);
  }
}
