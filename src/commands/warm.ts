import { DEFAULT_WARM_LIST, WARM_KINDS, parseWarmList, type WarmItem } from '../warm/warm-list.js';
import { duration, plural } from '../format/text.js';
import { itemLine, warmUp } from '../warm/warm.js';
import { NAMED_RANGES } from '../domain/dates.js';
import { syncCommandBody } from './sync.js';
import { programCommand, runOneShot, usageError, type OneShot, type Opened } from './command-opening.js';

const NAME = 'warm';
const FLAG = '--warm-list';

export const WARM_HELP = `Usage: org-analytics-mcp warm [--warm-list LIST] [server options]

Fetches the answers admins ask for most into the cache, then exits: 0 when done (or when another server
on the same --redis-url is already warming), 1 on a failure, 2 on a usage error. Run it from cron shortly
after the daily refresh (--refresh-hour, 03:00 UTC by default), with the same options and environment as
the server (e.g. --cache-dir, --redis-url, or --demo); progress goes to stderr, one line per answer.

  ${FLAG} LIST   ANALYTICS_WARM_LIST   comma-separated kind:range names
      default: ${DEFAULT_WARM_LIST}
      kinds:   ${WARM_KINDS.join(', ')}
      ranges:  ${NAMED_RANGES.join(', ')}

Server options: see org-analytics-mcp --help.
`;

/** Takes --warm-list out of the arguments, so that the rest read exactly like the server's options. */
function takeWarmList(argv: string[], env: NodeJS.ProcessEnv): { args: WarmItem[]; rest: string[] } {
  const rest: string[] = [];
  let list: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === FLAG) {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--'))
        throw usageError(NAME, `${FLAG} needs a list, e.g. user-activity:last_7_days.`);
      list = value;
    } else if (arg.startsWith(`${FLAG}=`)) list = arg.slice(FLAG.length + 1);
    else rest.push(arg);
  }
  const fromEnv = env.ANALYTICS_WARM_LIST?.trim() ? env.ANALYTICS_WARM_LIST : undefined;
  return { args: parseWarmList(list ?? fromEnv ?? DEFAULT_WARM_LIST, programCommand(NAME)), rest };
}

const WARM = { name: NAME, help: WARM_HELP, args: takeWarmList } satisfies OneShot<WarmItem[]>;

/** `org-analytics-mcp warm`: one warm-up, then the exit code (usage errors throw UsageError: exit 2); lines to stderr. */
export async function runWarmCommand(argv: string[], env: NodeJS.ProcessEnv, write?: (line: string) => void) {
  return runOneShot(WARM, argv, env, warm, { write });
}

async function warm({ args: items, runtime, history, say, signal }: Opened<WarmItem[]>): Promise<number> {
  const started = Date.now();
  // With a history store, warming is syncing: every later question over stored days answers at once.
  if (history) {
    say('a history store is configured: warming is the sync (see org-analytics-mcp sync --help)');
    return syncCommandBody(runtime, history, signal, say);
  }
  say(`fetching ${items.length} ${plural(items.length, 'answer')}: ${items.map((i) => i.name).join(', ')}`);
  const outcome = await warmUp(runtime, items, { signal, onItem: (r) => say(itemLine(r)) });
  if (!outcome.ran) {
    say(outcome.reason);
    return 0;
  }
  const failed = outcome.results.filter((r) => r.error);
  const took = duration(Date.now() - started);
  if (failed.length) {
    say(`${failed.length} of ${items.length} failed after ${took}: ${failed.map((r) => r.name).join(', ')}`);
    return 1;
  }
  say(`done in ${took}`);
  return 0;
}
