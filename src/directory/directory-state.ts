import { readFileSync, statSync } from 'node:fs';
import type { Logger } from '../logger.js';
import { Directory } from './directory.js';
import { DirectoryFileError, parseDirectoryFile } from './directory-file.js';
import type { DirectorySnapshot } from './directory-row.js';

/** How often the file is looked at: a change is in force within 10 s (issue 34), with room for the read. */
const POLL_MS = 3000;

/**
 * The directory in force, from a file that is read again when it changes, or from SCIM. A refused file leaves the
 * last good directory in force; the refusal is said once on stderr, and `problem` carries it into answers until a
 * good file replaces it.
 */
export class DirectoryState {
  private directory: Directory | undefined;
  private snapshot: DirectorySnapshot | undefined;
  private listeners: Array<(snapshot: DirectorySnapshot) => void> = [];
  private timer: NodeJS.Timeout | undefined;
  private lastStamp = '';
  /** Why the latest version of the file was refused; undefined while the one in force is the latest. */
  problem: string | undefined;

  constructor(private readonly log?: Logger) {}

  current(): Directory | undefined {
    return this.directory;
  }

  currentSnapshot(): DirectorySnapshot | undefined {
    return this.snapshot;
  }

  /** Called with each new version (the history store records it, dated). */
  onChange(listener: (snapshot: DirectorySnapshot) => void): void {
    this.listeners.push(listener);
  }

  replace(snapshot: DirectorySnapshot): void {
    this.snapshot = snapshot;
    this.directory = new Directory(snapshot.rows, snapshot.source);
    this.problem = undefined;
    for (const l of this.listeners) l(snapshot);
  }

  /** Reads the file now; throws DirectoryFileError when it is refused (the last good directory stays). */
  load(file: string): Directory {
    this.lastStamp = stampOf(file);
    const text = readFileSync(file, 'utf8');
    try {
      const rows = parseDirectoryFile(file, text);
      this.replace({ rows, source: { kind: 'file', name: file, loadedAt: new Date().toISOString() } });
      return this.directory!;
    } catch (error) {
      if (error instanceof DirectoryFileError) {
        if (this.problem !== error.message) this.log?.warn(error.message);
        this.problem = error.message;
      }
      throw error;
    }
  }

  /**
   * Reads the file again whenever it changes, until close. Its size and time are compared every few seconds (our
   * own poll: fs.watchFile misses a change made before its first look, and fs.watch misses editors that replace).
   */
  watch(file: string): void {
    this.timer = setInterval(() => {
      const stamp = stampOf(file);
      if (stamp === this.lastStamp) return;
      this.lastStamp = stamp;
      try {
        const d = this.load(file);
        this.log?.info('directory file read again', { identities: d.size });
      } catch (error) {
        if (!(error instanceof DirectoryFileError))
          this.log?.warn('the directory file could not be read; the last good one stays', {
            error: (error as Error).message,
          });
      }
    }, POLL_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }
}

function stampOf(file: string): string {
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return 'missing';
  }
}
