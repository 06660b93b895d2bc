import type { Directory } from './directory.js';
import type { DirectorySource } from './directory-row.js';

/** A directory as it applies to a range of days, and how far it can be trusted. */
export interface OrgView {
  directory: Directory;
  /** 'dated': the history store's day-by-day record; 'today': today's directory, applied to every day. */
  basis: 'dated' | 'today';
  source: DirectorySource;
  /** Why the latest version of the directory was refused (the last good one is the one used). */
  problem?: string;
}

/** The tools' port to the directory: who belonged where over a range, and the smallest group shown. */
export interface OrgDirectory {
  /** The directory over `start`..`end` (YYYY-MM-DD); undefined while none has been read. */
  over(start: string, end: string): Promise<OrgView | undefined>;
  minGroupSize: number;
  /** Resolves once every version read so far is kept in the history store (before the store closes). */
  settled?(): Promise<void>;
}
