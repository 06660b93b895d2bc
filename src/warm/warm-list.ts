import { UsageError, helpPointer } from '../config/cli-options.js';
import type { RateGroup } from '../contract/limits.js';
import { TOOLS } from '../tools/index.js';
import type { ToolDef } from '../tools/types.js';
import type { AnalyticsClient, ListingAnswer, ListOptions } from '../upstream/client.js';
import { NAMED_RANGES, type NamedRange } from '../domain/dates.js';

/** One answer to fetch ahead: a kind of question over a named range, e.g. user-activity:last_7_days. */
export interface WarmItem {
  name: string;
  /** The rate-limit group its requests go through: items of different groups can be fetched side by side. */
  group: RateGroup;
  fetch(client: AnalyticsClient, options: ListOptions): Promise<ListingAnswer<unknown[]>>;
}

/** The kinds the tools declare (ToolDef.requests.warm): a tool and one set of its arguments, by name. */
const KINDS = new Map(
  TOOLS.flatMap((tool) => Object.entries(tool.requests?.warm ?? {}).map(([name, args]) => [name, { tool, args }])),
);

export const WARM_KINDS = [...KINDS.keys()];

/**
 * The kind's arguments over the range, parsed as a call's are (the same defaults), then turned into the
 * request by the tool's own declaration: every page lands under the cache key the tool's call looks up.
 */
function itemOf(name: string, tool: ToolDef, args: Record<string, unknown>, range: NamedRange): WarmItem {
  const { listing, args: listArgs } = tool.requests!.of(tool.input.parse({ ...args, range }) as never);
  // Every analytics listing is rate limited; one without a limit would simply go with the general group.
  const group = listing.group ?? 'general';
  return { name, group, fetch: (client, options) => client.list(listing, listArgs as never, options) };
}

/** What admins ask for most: fetched after each daily refresh unless --warm-list says otherwise. */
export const DEFAULT_WARM_LIST =
  'user-activity:last_7_days,user-activity:last_30_days,credit-usage:last_7_days,credit-usage:last_30_days,' +
  'cost-by-user:last_30_days,cost-by-resource:last_30_days,dau-count:last_90_days';

const SOURCE = '--warm-list / ANALYTICS_WARM_LIST';

/** Reads a comma-separated list of kind:range names; throws UsageError naming what is wrong and what is allowed. */
export function parseWarmList(text: string, command = 'org-analytics-mcp warm'): WarmItem[] {
  const names = [
    ...new Set(
      text
        .split(',')
        .map((n) => n.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  if (names.length === 0) throw new UsageError(`${SOURCE} names nothing to fetch.\n${helpPointer(command)}`);
  return names.map((name) => {
    const [kind = '', range = '', extra] = name.split(':');
    const known = KINDS.get(kind);
    if (!known || !(NAMED_RANGES as readonly string[]).includes(range) || extra !== undefined) {
      throw new UsageError(
        `${SOURCE}: '${name}' is not kind:range.\n` +
          `  kinds: ${WARM_KINDS.join(', ')}\n  ranges: ${NAMED_RANGES.join(', ')}\n${helpPointer(command)}`,
      );
    }
    return itemOf(name, known.tool, known.args, range as NamedRange);
  });
}

/** The list --warm-list or ANALYTICS_WARM_LIST names, or else the default one. */
export function warmListOf(text: string | undefined, command = 'org-analytics-mcp'): WarmItem[] {
  return parseWarmList(text?.trim() || DEFAULT_WARM_LIST, command);
}
