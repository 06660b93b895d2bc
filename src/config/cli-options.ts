import { parseArgs } from 'node:util';
import { z } from 'zod';

/** A whole-number option's schema: each refusal names the option (`--flag / ENV`) and what it takes. */
export function wholeNumber(option: string, unit: string, range: { min: number; max?: number; fallback: number }) {
  const must = `${option} must be`;
  const span = range.max === undefined ? `at least ${range.min}` : `${range.min} to ${range.max}`;
  const schema = z
    .number({ message: `${must} a number of ${unit}, e.g. ${range.fallback}` })
    .int({ message: `${must} a whole number of ${unit}, ${span}` })
    .min(range.min, { message: `${must} ${span}` });
  return (range.max === undefined ? schema : schema.max(range.max, { message: `${must} ${span}` })).default(
    range.fallback,
  );
}

/** A command line or environment the program cannot run with: exit code 2, where a failure while running is 1. */
export class UsageError extends Error {}

export const EXIT_USAGE = 2;
export const EXIT_FAILURE = 1;

/** One row of a command's table of options: its flag, its environment variable, its validation and its help. */
export interface Option<S extends z.ZodType = z.ZodType> {
  /** The flag without its dashes. */
  flag: string;
  env: string;
  /** switch: on/off (a bare flag unless it has a value placeholder); number: numeric text becomes a number. */
  kind: 'switch' | 'text' | 'number';
  /** Placeholder of the flag's value in help, e.g. SECONDS; choices stand for themselves. */
  value?: string;
  choices?: readonly string[];
  schema: S;
  /** The default as people read it, in --help and the README. */
  shown: string;
  help: string;
  /** The manifest's user_config key, when the bundle lets its user set this option. */
  manifest?: string;
  /** A credential: marked sensitive in the manifest and isSecret in the registry entry (.ci/server.json). */
  secret?: true;
}

export type OptionTable = Record<string, Option>;
type ShapeOf<T extends OptionTable> = { [K in keyof T]: T[K]['schema'] };

export const helpPointer = (command: string) => `Run ${command} --help for the options.`;

export const schemaOf = <T extends OptionTable>(table: T) =>
  z.object(Object.fromEntries(Object.entries(table).map(([key, option]) => [key, option.schema])) as ShapeOf<T>);

/** A text option taking one of `choices`, `fallback` when not given: its kind, choices, schema and shown default. */
export const oneOf = <const C extends readonly [string, ...string[]]>(choices: C, fallback: C[number]) =>
  ({ kind: 'text', choices, schema: z.enum(choices).default(fallback), shown: fallback }) as const;

const ON = ['1', 'true', 'yes', 'on'];
const OFF = ['0', 'false', 'no', 'off'];

function interpret(option: Option, text: string, source: string, command: string): unknown {
  if (option.kind === 'switch') {
    const word = text.trim().toLowerCase();
    if (ON.includes(word)) return true;
    if (OFF.includes(word)) return false;
    throw new UsageError(
      `${source} takes on or off (or true/false, yes/no, 1/0), got '${text}'.\n${helpPointer(command)}`,
    );
  }
  // Text that is not a plain number stays text, so validation names the setting instead of accepting NaN.
  if (option.kind === 'number') return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : text;
  return option.choices ? text.trim().toLowerCase() : text.trim();
}

export interface ReadOptions {
  /** Values by the table's keys, before validation; absent where neither the flag nor the variable is set. */
  raw: Record<string, unknown>;
  /** Where each value came from (`--port` or `ANALYTICS_PORT`), for messages. */
  sources: Record<string, string>;
  help: boolean;
}

/** Reads flags, then environment variables for what no flag gave. A blank variable counts as unset. */
export function readOptions(table: OptionTable, argv: string[], env: NodeJS.ProcessEnv, command: string): ReadOptions {
  const flags = Object.fromEntries(
    Object.values(table).map((o) => [
      o.flag,
      { type: o.kind === 'switch' && !o.value ? ('boolean' as const) : ('string' as const) },
    ]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: { ...flags, help: { type: 'boolean', short: 'h' } },
    }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${helpPointer(command)}`);
  }
  const raw: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const [key, option] of Object.entries(table)) {
    const flag = values[option.flag];
    const variable = env[option.env];
    if (flag !== undefined) sources[key] = `--${option.flag}`;
    else if (variable !== undefined && variable.trim() !== '') sources[key] = option.env;
    else continue;
    raw[key] = typeof flag === 'boolean' ? flag : interpret(option, flag ?? variable!, sources[key], command);
  }
  return { raw, sources, help: values.help === true };
}

/** Messages that name the flag or variable the bad value came from; a schema's own message wins. */
const explain = (sources: Record<string, string>) => (issue: z.core.$ZodRawIssue) => {
  const key = String(issue.path?.[0] ?? '');
  const source = sources[key] ?? key;
  if (issue.code === 'invalid_type' && (issue.expected === 'number' || issue.expected === 'int')) {
    return `${source} takes ${issue.expected === 'int' ? 'a whole number' : 'a number'}, got '${String(issue.input)}'.`;
  }
  if (issue.code === 'invalid_value') {
    const words = issue.values.map(String);
    return `${source} takes ${words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : words[0]}, got '${String(issue.input)}'.`;
  }
  if (issue.code === 'too_small')
    return issue.origin === 'string'
      ? `${source} must not be empty.`
      : `${source} must be at least ${String(issue.minimum)}.`;
  if (issue.code === 'too_big') return `${source} must be at most ${String(issue.maximum)}.`;
  if (issue.code === 'invalid_format')
    return `${source} must be ${issue.format === 'url' ? 'an http(s) URL' : `in ${issue.format} format`}.`;
  return undefined;
};

/** Validates what readOptions read; throws a UsageError listing every problem and pointing to --help. */
export function validateOptions<S extends z.ZodType>(schema: S, read: ReadOptions, command: string): z.output<S> {
  const result = schema.safeParse(read.raw, { error: explain(read.sources) });
  if (result.success) return result.data;
  const issues = result.error.issues;
  const lines = issues.map((i) => (i.path.length ? `  ${i.path.join('.')}: ${i.message}` : i.message));
  const heading = issues.some((i) => i.path.length) ? 'Invalid configuration:\n' : '';
  throw new UsageError(`${heading}${lines.join('\n')}\n${helpPointer(command)}`);
}

/**
 * A one-shot command's stop: Ctrl-C or a kill (SIGINT, SIGTERM) aborts `signal`, so that the command stops
 * between steps and cleans up; `release` stops listening (the signals' default returns).
 */
export function stopSignal(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const interrupt = (name: NodeJS.Signals) => controller.abort(new Error(`interrupted by ${name}`));
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
  return {
    signal: controller.signal,
    release: () => void process.off('SIGINT', interrupt).off('SIGTERM', interrupt),
  };
}
