import { readFileSync, renameSync, writeFileSync } from 'node:fs';

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

  protected entries(): IterableIterator<[string, number]> {
    return this.pages.entries();
  }
}

/**
 * Estimates kept in a file next to the disk cache, so that the first walk of a question after a restart (or
 * the next day) can say "page 23 of ~101". One file per upstream token; written whole through a rename, 0600.
 * A file that cannot be read or written only costs the estimates: nothing else depends on them.
 */
export class FilePageEstimates extends MemoryPageEstimates {
  constructor(
    private readonly path: string,
    max = 1000,
  ) {
    super(max);
    try {
      const saved = JSON.parse(readFileSync(path, 'utf8')) as unknown;
      if (saved && typeof saved === 'object')
        for (const [key, pages] of Object.entries(saved))
          if (Number.isInteger(pages) && (pages as number) > 0) super.set(key, pages as number);
    } catch {
      // Missing or damaged: start empty.
    }
  }

  override set(key: string, pages: number): void {
    // Every walk ends here, a cached one too: the file is written only when an estimate changes.
    if (this.get(key) === pages) return;
    super.set(key, pages);
    try {
      const temp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(Object.fromEntries(this.entries())), { mode: 0o600 });
      renameSync(temp, this.path);
    } catch {
      // The cache directory is not writable: the estimates stay in memory.
    }
  }
}
