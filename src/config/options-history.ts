import { z } from 'zod';
import { wholeNumber, type Option } from './cli-options.js';

/** Where --history points: nowhere, a SQLite file in the cache directory (auto), a SQLite file, or a PostgreSQL database. */
export type HistoryWhere =
  { kind: 'none' } | { kind: 'auto' } | { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

const HISTORY_TAKES = '--history / ANALYTICS_HISTORY takes auto, none, a file path or a postgres:// URL';

/** `--history` read once: auto and none in any case, a postgres:// (or postgresql://) URL, else a file path. */
export function parseHistoryWhere(text: string): HistoryWhere | string {
  const value = text.trim();
  if (value.toLowerCase() === 'none') return { kind: 'none' };
  if (value.toLowerCase() === 'auto') return { kind: 'auto' };
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: value };
  if (value === '') return `${HISTORY_TAKES}, got nothing.`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
  if (scheme) return `${HISTORY_TAKES}, got a ${scheme}:// URL.`;
  return { kind: 'sqlite', path: value };
}

/** The options of the history store and its sync, part of the server's one table (src/config/options.ts). */
export const HISTORY_OPTIONS = {
  history: {
    flag: 'history',
    env: 'ANALYTICS_HISTORY',
    kind: 'text',
    value: 'WHERE',
    schema: z
      .string()
      .min(1)
      .default('auto')
      .transform((text, ctx): HistoryWhere => {
        const where = parseHistoryWhere(text);
        if (typeof where !== 'string') return where;
        ctx.issues.push({ code: 'custom', message: where, input: text });
        return z.NEVER;
      }),
    shown: 'auto',
    help: 'the history store: auto (SQLite in the cache directory), none, a file path, or a postgres:// URL for a team',
    manifest: 'history',
  },
  sync: {
    flag: 'sync',
    env: 'ANALYTICS_SYNC',
    kind: 'switch',
    schema: z.boolean().default(false),
    shown: 'off',
    help: 'with history: fill the store in the background, and again after each daily refresh',
  },
  historyDays: {
    flag: 'history-days',
    env: 'ANALYTICS_HISTORY_DAYS',
    kind: 'number',
    value: 'N',
    schema: wholeNumber('--history-days / ANALYTICS_HISTORY_DAYS', 'days', { min: 0, max: 730, fallback: 90 }),
    shown: '90',
    help: 'days the sync keeps, newest first (at most 730)',
  },
  historyMonths: {
    flag: 'history-months',
    env: 'ANALYTICS_HISTORY_MONTHS',
    kind: 'number',
    value: 'M',
    schema: wholeNumber('--history-months / ANALYTICS_HISTORY_MONTHS', 'months', { min: 0, max: 24, fallback: 24 }),
    shown: '24',
    help: 'complete calendar months the sync keeps as one block each; 0 keeps days only',
  },
  syncShare: {
    flag: 'sync-share',
    env: 'ANALYTICS_SYNC_SHARE',
    kind: 'number',
    value: 'SHARE',
    schema: z
      .number({ message: '--sync-share / ANALYTICS_SYNC_SHARE must be a number from 0.05 to 1, e.g. 0.8' })
      .min(0.05, { message: '--sync-share / ANALYTICS_SYNC_SHARE must be from 0.05 to 1' })
      .max(1, { message: '--sync-share / ANALYTICS_SYNC_SHARE must be from 0.05 to 1' })
      .default(0.8),
    shown: '0.8',
    help: 'part of each documented rate the sync may use; calls for people go first',
  },
} as const satisfies Record<string, Option>;
