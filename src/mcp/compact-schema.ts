import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

type Json = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

/** The keywords that only constrain values of one JSON type: they go into that type's `anyOf` branch. */
const NUMERIC = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: NUMERIC,
  integer: NUMERIC,
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'],
  object: [
    'properties',
    'required',
    'additionalProperties',
    'patternProperties',
    'propertyNames',
    'minProperties',
    'maxProperties',
  ],
};

/**
 * zod writes `type: ["string", "null"]` for unions of primitives. Strict validators (ajv strict) and
 * Gemini's function-declaration subset refuse type arrays, so each type becomes its own `anyOf`
 * branch, carrying the keywords that apply to it; the rest (description, default, enum) stays put.
 */
function splitTypeArray(node: Json): Json {
  const types = node.type as string[];
  const branches = types.map((t) => ({ type: t, ...pick(node, TYPE_KEYWORDS[t] ?? []) }));
  const owned = new Set(types.flatMap((t) => TYPE_KEYWORDS[t] ?? []));
  const union =
    node.anyOf === undefined ? { anyOf: branches } : { allOf: [{ anyOf: node.anyOf }, { anyOf: branches }] };
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type') Object.assign(out, union);
    else if (k !== 'anyOf' && !owned.has(k)) out[k] = v;
  }
  return out;
}

const pick = (node: Json, keys: readonly string[]): Json =>
  Object.fromEntries(Object.entries(node).filter(([k]) => keys.includes(k)));

/**
 * zod writes `{}` for a value of any kind (`z.unknown()`); `true` says the same, and the MCP Inspector and
 * strict validators do not take it for a schema whose keywords were forgotten.
 */
const anything = (schema: unknown) =>
  schema && typeof schema === 'object' && !Array.isArray(schema) && Object.keys(schema).length === 0 ? true : schema;

/**
 * Drops what every model pays for on every turn and nobody needs: `$schema`, the ±2^53 bounds zod
 * writes on every integer and `propertyNames: {type: string}` on records. Output schemas keep their
 * types but lose `additionalProperties: false` and `required`: they describe what a field holds, and
 * the server checks the full contract with zod before anything is sent. Input objects keep
 * `additionalProperties: false`: unknown argument names are refused, and clients should know it.
 */
function strip(node: unknown, output: boolean, root = true): unknown {
  if (Array.isArray(node)) return node.map((n) => strip(n, output, false));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (root && k === '$schema') continue;
    if ((k === 'minimum' && v === -SAFE) || (k === 'maximum' && v === SAFE)) continue;
    if (k === 'propertyNames' && JSON.stringify(v) === '{"type":"string"}') continue;
    if (output && ((k === 'additionalProperties' && v === false) || k === 'required')) continue;
    const value = strip(v, output, false);
    if (k === 'additionalProperties' || k === 'items') out[k] = anything(value);
    else if (k === 'properties' && value && typeof value === 'object')
      out[k] = Object.fromEntries(Object.entries(value).map(([name, p]) => [name, anything(p)]));
    else out[k] = value;
  }
  return Array.isArray(out.type) ? splitTypeArray(out) : out;
}

/**
 * The zod schema with a leaner JSON Schema for tools/list; validation is zod's, unchanged. The tool list
 * is read on every turn, so its bytes are context every conversation pays for.
 */
export function compactSchema<T extends z.ZodType>(
  schema: T,
  kind: 'input' | 'output',
): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const std = (schema as unknown as StandardSchemaWithJSON<z.input<T>, z.output<T>>)['~standard'];
  const output = kind === 'output';
  // Converted once per set of options: every HTTP request builds a server, and every tools/list asks again.
  const done = new Map<string, Json>();
  const once = (side: 'input' | 'output', options: Parameters<typeof std.jsonSchema.input>[0]) => {
    const key = `${side}|${options.target}|${options.libraryOptions ? JSON.stringify(options.libraryOptions) : ''}`;
    let json = done.get(key);
    if (!json) done.set(key, (json = strip(std.jsonSchema[side](options), output) as Json));
    return json;
  };
  return {
    '~standard': {
      ...std,
      jsonSchema: { input: (options) => once('input', options), output: (options) => once('output', options) },
    },
  };
}
