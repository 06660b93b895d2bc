import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { UserInputError } from '../errors.js';
import { clip, plural } from '../format/text.js';
import { compactSchema } from './compact-schema.js';
import { PROTO_ARGUMENT } from './proto-argument.js';
import type { ToolDef } from '../tools/types.js';

/**
 * The input schema as registered with the SDK: advertised in full, but passing every value through.
 * The SDK would answer a validation failure with zod's bare words ("Unrecognized key") and past our
 * error funnel; the tool checks its arguments itself instead (withCheckedArgs), in words a model can act on.
 */
export function advertisedInput(schema: z.ZodObject): StandardSchemaWithJSON<unknown, unknown> {
  const std = compactSchema(schema, 'input')['~standard'];
  return { '~standard': { ...std, validate: (value: unknown) => ({ value }) } } as StandardSchemaWithJSON<
    unknown,
    unknown
  >;
}

/** The tool with its handler taking raw arguments: they are checked (strictly) and defaulted before it runs. */
export function withCheckedArgs(def: ToolDef): ToolDef {
  return { ...def, run: async (args, ctx) => def.run(await checkedArgs(def.name, def.input, args), ctx) };
}

/** What a message lists at most: a fuzzed call with thousands of bad fields gets a readable answer. */
const MAX_PROBLEMS = 10;

/** The arguments of a tool (or prompt) called `name`, parsed by `schema`; a UserInputError in our words if they do not fit. */
export async function checkedArgs<S extends z.ZodObject>(name: string, schema: S, args: unknown): Promise<z.output<S>> {
  const parsed = await schema.safeParseAsync(args ?? {});
  if (parsed.success) return parsed.data;
  const issues = [...parsed.error.issues].sort(byRank);
  const problems = [...new Set(issues.map((issue) => describe(issue, schema, args)))];
  const more =
    problems.length > MAX_PROBLEMS
      ? `; and ${problems.length - MAX_PROBLEMS} more ${plural(problems.length - MAX_PROBLEMS, 'problem')}`
      : '';
  throw new UserInputError(`Invalid arguments for ${name}: ${problems.slice(0, MAX_PROBLEMS).join('; ')}${more}`);
}

// Misspelt names first, outermost first: they usually explain the rest (a required argument that seems missing).
const rank = (i: z.core.$ZodIssue) => (i.code === 'unrecognized_keys' ? 0 : 1000) + i.path.length;
const byRank = (a: z.core.$ZodIssue, b: z.core.$ZodIssue) => rank(a) - rank(b);

function describe(issue: z.core.$ZodIssue, schema: z.ZodType, args: unknown): string {
  const at = pathText(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const valid = Object.keys(objectAt(schema, issue.path)?.shape ?? {});
    const what = issue.path.length
      ? `field${issue.keys.length > 1 ? 's' : ''} in ${at}`
      : `argument${issue.keys.length > 1 ? 's' : ''}`;
    const named = issue.keys.slice(0, MAX_PROBLEMS).map((k) => {
      const close = closest(k, valid);
      const name = k === PROTO_ARGUMENT ? '__proto__' : clip(k);
      return close ? `${name} (did you mean ${close}?)` : name;
    });
    if (issue.keys.length > MAX_PROBLEMS) named.push(`and ${issue.keys.length - MAX_PROBLEMS} more`);
    return `unknown ${what} ${named.join(', ')}; the valid ${issue.path.length ? 'fields' : 'arguments'} are ${valid.join(', ')}`;
  }
  if (valueAt(args, issue.path) === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union'))
    return `${at} is required`;
  if (issue.code === 'invalid_union' && issue.message === 'Invalid input') return unionProblem(issue, schema, args);
  return `${at}: ${issue.message}`;
}

/**
 * A value that fits no form of a union names the forms; when it has the shape of one of them (an object
 * for {start_date, end_date}), what that form still lacks too.
 */
function unionProblem(issue: z.core.$ZodIssueInvalidUnion, schema: z.ZodType, args: unknown): string {
  const forms = acceptedForms(schemaAt(schema, issue.path));
  const at = pathText(issue.path);
  const head = forms ? `${at}: use ${forms}` : `${at}: ${issue.message}`;
  // The form whose type the value has: every problem is inside it, not with the value as a whole.
  const near = issue.errors.find((b) => b.every((i) => i.path.length > 0 || i.code === 'unrecognized_keys'));
  if (!near) return head;
  const inner = [...near].sort(byRank).map((i) => describe({ ...i, path: [...issue.path, ...i.path] }, schema, args));
  return `${head} (${[...new Set(inner)].slice(0, MAX_PROBLEMS).join('; ')})`;
}

/** overrides[0].limit */
function pathText(path: PropertyKey[]): string {
  return (
    path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('') || 'the arguments'
  );
}

function valueAt(value: unknown, path: PropertyKey[]): unknown {
  let v = value;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, string>;
  values?: unknown[];
};
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema that validates the value at this path, looking through arrays, optionals and defaults. */
function schemaAt(schema: z.ZodType, path: PropertyKey[]): z.ZodType | undefined {
  let s: z.ZodType | undefined = schema;
  let i = 0;
  while (s) {
    const def = defOf(s);
    if (def.innerType) s = def.innerType;
    else if (def.type === 'pipe') s = def.in;
    else if (i === path.length) return s;
    else if (def.type === 'object') s = def.shape![String(path[i++])];
    else if (def.type === 'union') s = def.options!.find((o) => defOf(o).type === 'object');
    else if (def.type === 'array') {
      s = def.element;
      i++;
    } else return undefined;
  }
  return undefined;
}

function objectAt(schema: z.ZodType, path: PropertyKey[]): { shape: Record<string, z.ZodType> } | undefined {
  const found = schemaAt(schema, path);
  const def = found && defOf(found);
  const object = def?.type === 'union' ? def.options!.map(defOf).find((o) => o.type === 'object') : def;
  return object?.type === 'object' ? { shape: object.shape! } : undefined;
}

/** What a union takes, in words: "previous_period", "previous_year" or {start_date, end_date}. */
function acceptedForms(union: z.ZodType | undefined): string | undefined {
  const options = union ? defOf(union).options : undefined;
  if (!options) return undefined;
  const forms = options.flatMap((option): string[] => {
    const def = defOf(option);
    if (def.type === 'enum') return Object.values(def.entries!).map((v) => JSON.stringify(v));
    if (def.type === 'literal') return def.values!.map((v) => JSON.stringify(v));
    if (def.type === 'object') return [`{${Object.keys(def.shape!).join(', ')}}`];
    return [def.type === 'null' ? 'null' : `a ${def.type}`];
  });
  return `${forms.slice(0, -1).join(', ')} or ${forms.at(-1)}`;
}

/** Words models often use for ours: from_date means start_date. */
const SYNONYMS: Record<string, string> = {
  from: 'start',
  since: 'start',
  begin: 'start',
  to: 'end',
  until: 'end',
  till: 'end',
};

const normalize = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) => SYNONYMS[w] ?? w)
    .join('_');

/** The valid name this unknown one most likely meant, if one is close enough to say so. */
function closest(name: string, valid: readonly string[]): string | undefined {
  const n = normalize(name);
  const scored = valid.map((v) => ({ v, d: v.split('_').includes(n) ? 1 : distance(n, v) })).sort((x, y) => x.d - y.d);
  const [best, second] = scored;
  // Two equally close names (date: start_date or end_date?) are a guess, not a suggestion.
  if (!best || best.d > Math.max(2, Math.floor(n.length / 3)) || second?.d === best.d) return undefined;
  return best.v;
}

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
