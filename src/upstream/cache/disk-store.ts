import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../logger.js';
import {
  CONTENT_DIR,
  INDEX_DIR,
  TMP_DIR,
  bucketPath,
  contentPath,
  filesUnder,
  integrityOf,
  prepareRoot,
  remove,
  secure,
} from './disk-files.js';
import { decodeAnswer, STORE_FORMAT, type AnswerStore, type StoredAnswer, type StoreHit } from './stored-answer.js';

/*
 * Why cacache (npm's own cache): atomic content writes (temp file, then rename), a sha512 integrity check
 * on every read so that a truncated or corrupted file is detected instead of served, index lines that
 * carry their own hash so that a torn or garbled line is skipped, and many processes may share one
 * directory. bentocache and keyv's file stores write whole JSON files without an integrity check or
 * keep one file for all entries (lost updates between processes), and add a second caching layer with
 * its own TTL and stampede rules on top of ours.
 */

type Cacache = typeof import('cacache');
export type StoreLog = Pick<Logger, 'warn' | 'debug'>;

const KEY_PREFIX = `${STORE_FORMAT}|`;
/** Content or an index file no entry points to is removed after this long: a writer puts content before its entry. */
const ORPHAN_GRACE_MS = 10 * 60_000;
/** Temporary files of a writer that died. */
const TMP_GRACE_MS = 60 * 60_000;
/** Eviction goes down to this share of the bound, so that the next check is not due at once. */
const LOW_WATER = 0.9;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Answers on disk, across restarts and shared by the processes of one user; see the note on cacache above. */
export class DiskStore implements AnswerStore {
  readonly name = 'disk';
  private opened: Promise<Cacache | undefined> | undefined;
  /** Bytes written since the size was last checked; the first write checks it. */
  private sinceCheck = Number.POSITIVE_INFINITY;
  private readonly checkEvery: number;
  private checking: Promise<void> | undefined;
  private readonly complained = new Set<string>();

  constructor(
    readonly root: string,
    private readonly maxBytes: number,
    private readonly log?: StoreLog,
  ) {
    this.checkEvery = Math.max(64 * 1024, maxBytes / 10);
  }

  private open(): Promise<Cacache | undefined> {
    return (this.opened ??= (async () => {
      try {
        await prepareRoot(this.root);
        return (await import('cacache')).default;
      } catch (error) {
        this.complain('open', 'the disk cache directory cannot be used; answers are cached in memory only', error);
        return undefined;
      }
    })());
  }

  /** Warns once per kind of trouble, then only at debug level: a full disk must not flood the log. */
  private complain(kind: string, message: string, error: unknown, fields: Record<string, unknown> = {}): void {
    const at = this.complained.has(kind) ? 'debug' : 'warn';
    this.complained.add(kind);
    this.log?.[at](message, { dir: this.root, ...fields, error: errorText(error) });
  }

  async get(key: string, now: number): Promise<StoreHit | undefined> {
    const cacache = await this.open();
    if (!cacache) return undefined;
    const name = KEY_PREFIX + key;
    let text: string;
    try {
      text = (await cacache.get(this.root, name, { memoize: false })).data.toString('utf8');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'ENOENT') return undefined;
      this.complain('damaged', 'a damaged disk cache entry was removed; it is fetched again', error, { code });
      await this.delete(key);
      return undefined;
    }
    const decoded = decodeAnswer(text, key);
    if (!decoded.ok) {
      this.complain('damaged', 'an unreadable disk cache entry was removed; it is fetched again', decoded.why);
      await this.delete(key);
      return undefined;
    }
    if (decoded.hit.expiresAt <= now) return undefined;
    // The index file's mtime records the entry's last use, for eviction.
    const at = new Date();
    await utimes(bucketPath(this.root, name), at, at).catch(() => {});
    return decoded.hit;
  }

  async set(answer: StoredAnswer, encoded: string, now: number): Promise<void> {
    if (answer.expiresAt <= now) return;
    const cacache = await this.open();
    if (!cacache) return;
    const name = KEY_PREFIX + answer.key;
    try {
      const integrity = await cacache.put(this.root, name, encoded, { metadata: { expiresAt: answer.expiresAt } });
      // put resolves to an ssri Integrity object, whatever its typings say.
      await secure(this.root, [bucketPath(this.root, name), contentPath(this.root, String(integrity))]);
    } catch (error) {
      this.complain('write', 'could not write to the disk cache', error);
      return;
    }
    this.sinceCheck += Buffer.byteLength(encoded);
    if (this.sinceCheck >= this.checkEvery && !this.checking) void this.enforceBound(now);
  }

  async delete(key: string): Promise<void> {
    const cacache = await this.open();
    if (!cacache) return;
    const name = KEY_PREFIX + key;
    try {
      const info = await cacache.get.info(this.root, name);
      await remove(bucketPath(this.root, name));
      if (info?.integrity) await remove(contentPath(this.root, info.integrity));
    } catch (error) {
      this.complain('delete', 'could not remove a disk cache entry', error);
    }
  }

  /** Brings the store within its bound: one check at a time, each after the one under way. */
  enforceBound(now: number): Promise<void> {
    const run = (this.checking ?? Promise.resolve())
      .then(() => this.check(now))
      .catch((error: unknown) => this.complain('evict', 'could not keep the disk cache within its size', error));
    this.checking = run;
    void run.finally(() => {
      if (this.checking === run) this.checking = undefined;
    });
    return run;
  }

  /**
   * Drops expired entries and those of other formats, content and index files no entry points to, and
   * then the least recently used entries until the files take at most LOW_WATER of the bound. Other
   * processes may do the same at the same time: removing a file twice is harmless, and a reader whose
   * file went away has a miss.
   */
  private async check(now: number): Promise<void> {
    const cacache = await this.open();
    if (!cacache) return;
    this.sinceCheck = 0;
    const wall = Date.now();
    const entries = Object.values(await cacache.ls(this.root));
    const [index, content, tmp] = await Promise.all(
      [INDEX_DIR, CONTENT_DIR, TMP_DIR].map((d) => filesUnder(join(this.root, d))),
    );
    const indexFiles = new Map(index!.map((f) => [f.path, f]));
    const contentFiles = new Map(content!.map((f) => [integrityOf(this.root, f.path), f]));
    const fresh = (e: (typeof entries)[number]) =>
      e.key.startsWith(KEY_PREFIX) && Number((e.metadata as { expiresAt?: unknown } | undefined)?.expiresAt) > now;
    const kept = entries.filter(fresh);
    const refs = new Map<string, number>();
    for (const e of kept) refs.set(e.integrity, (refs.get(e.integrity) ?? 0) + 1);
    const keptBuckets = new Set(kept.map((e) => bucketPath(this.root, e.key)));
    const droppedBuckets = new Set(entries.filter((e) => !fresh(e)).map((e) => bucketPath(this.root, e.key)));
    const dropped = new Set(entries.filter((e) => !fresh(e)).map((e) => e.integrity));

    let total = 0;
    for (const f of tmp!) if (wall - f.mtimeMs > TMP_GRACE_MS) await remove(f.path);
    for (const f of index!) {
      if (keptBuckets.has(f.path)) total += f.size;
      else if (wall - f.mtimeMs > ORPHAN_GRACE_MS || droppedBuckets.has(f.path)) await remove(f.path);
      else total += f.size;
    }
    for (const [integrity, f] of contentFiles) {
      if (integrity && refs.has(integrity)) total += f.size;
      else if (wall - f.mtimeMs > ORPHAN_GRACE_MS || (integrity && dropped.has(integrity))) await remove(f.path);
      else total += f.size;
    }
    if (total <= this.maxBytes) return;

    const lastUse = (key: string) => indexFiles.get(bucketPath(this.root, key))?.mtimeMs ?? 0;
    for (const e of kept.sort((a, b) => lastUse(a.key) - lastUse(b.key))) {
      if (total <= this.maxBytes * LOW_WATER) break;
      const bucket = bucketPath(this.root, e.key);
      await remove(bucket);
      total -= indexFiles.get(bucket)?.size ?? 0;
      const left = (refs.get(e.integrity) ?? 1) - 1;
      refs.set(e.integrity, left);
      const file = contentFiles.get(e.integrity);
      if (left === 0 && file) {
        await remove(file.path);
        total -= file.size;
      }
    }
  }

  async close(): Promise<void> {
    await this.checking;
  }
}
