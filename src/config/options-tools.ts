import { z } from 'zod';
import type { Option } from './cli-options.js';

/**
 * The toolsets, by concern, in the order tools/list shows their tools. Each tool names its own (ToolDef.toolset,
 * the folder under src/tools/ it lives in); the names are public (a command line or a bundle's settings name them).
 */
export const TOOLSETS = ['usage', 'editors', 'cost', 'budgets', 'changelog', 'insights'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/**
 * Every endpoint of the API is a tool by default: what a model reads of tools/list with every toolset stays
 * within 24 KB (test/tools/index.test.ts), so nothing is held back to save tokens. `--toolsets` narrows it.
 */
export const DEFAULT_TOOLSETS: readonly Toolset[] = TOOLSETS;

const OPTION = '--toolsets / ANALYTICS_TOOLSETS';
const CHOICES = `${TOOLSETS.join(', ')}, default or all`;

/** "cost, budgets" → ['cost', 'budgets']; `default` stands for the default set, `all` for every toolset. */
const toolsetList = z
  .string()
  .default('default')
  .transform((text, ctx): Toolset[] => {
    const names = text
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    const unknown = names.filter(
      (name) => !(TOOLSETS as readonly string[]).includes(name) && name !== 'all' && name !== 'default',
    );
    if (unknown.length || !names.length) {
      ctx.issues.push({
        code: 'custom',
        message: `${OPTION} takes a comma-separated list of ${CHOICES}; got '${unknown.join(',') || text}'.`,
        input: text,
      });
      return z.NEVER;
    }
    const wanted = new Set<string>(
      names.flatMap((name): readonly string[] =>
        name === 'all' ? TOOLSETS : name === 'default' ? DEFAULT_TOOLSETS : [name],
      ),
    );
    return TOOLSETS.filter((name) => wanted.has(name));
  });

/** Which tools the server offers, part of the server's one table (src/config/options.ts). */
export const TOOL_OPTIONS = {
  toolsets: {
    flag: 'toolsets',
    env: 'ANALYTICS_TOOLSETS',
    kind: 'text',
    value: 'LIST',
    schema: toolsetList,
    shown: 'default (all)',
    help: `tools offered, as comma-separated toolsets: ${TOOLSETS.join(', ')}; default or all (both: every toolset)`,
    manifest: 'toolsets',
  },
} as const satisfies Record<string, Option>;
