import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.js';
import { harness, type Harness } from '../helpers/mcp.js';

let h: Harness;
let tools: Awaited<ReturnType<Harness['mcp']['listTools']>>['tools'];
/** What a server offers when no --toolsets is given (the harness serves every tool). */
let defaults: typeof tools;
beforeAll(async () => {
  h = await harness({ sim: { users: 20 } });
  tools = (await h.mcp.listTools()).tools;
  const served = await harness({ simulator: h.sim, config: { toolsets: undefined } });
  defaults = (await served.mcp.listTools()).tools;
  await served.close();
});
afterAll(() => h.close());

const root = new URL('../../', import.meta.url);

describe('tools/list', () => {
  it('lists every tool of the registry, in order', () => {
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
  });

  it('gives every tool a title and all four hints, set explicitly', () => {
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
        expect(typeof t.annotations?.[hint], `${t.name}.${hint}`).toBe('boolean');
    }
  });

  it('keeps each description within 600 characters, saying the freshness rule or the cache', () => {
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeLessThanOrEqual(600);
      expect(t.description, t.name).toMatch(/complete day|90 minutes|real time|[Cc]ached/);
    }
  });

  // The model reads names, descriptions and input schemas (budgeted below); output schemas are for the
  // client, which checks answers against them, so the whole payload has a looser ceiling (every freshness
  // names its source since the history store, and six answers have a groups block since teams, issue 34).
  it('stays small: the whole payload of every tool, offered by default, under 64 KB', () => {
    const sent = Buffer.byteLength(JSON.stringify({ tools: defaults }));
    const all = Buffer.byteLength(JSON.stringify({ tools }));
    console.log(
      `tools/list payload: ${sent} bytes for the ${defaults.length} default tools, ${all} for all ${tools.length}`,
    );
    expect(sent).toBe(all);
    expect(all).toBeLessThan(64 * 1024);
  });

  // Every tool is offered by default, so this is what every conversation carries; the teams issue adds arguments.
  it('keeps what a model reads (names, descriptions, input schemas) of the default tools, every tool, within 24 KB', () => {
    expect(defaults.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    const read = defaults.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    const bytes = Buffer.byteLength(JSON.stringify(read));
    console.log(`tools/list as a model reads it: ${bytes} bytes for the ${defaults.length} default tools`);
    expect(bytes).toBeLessThanOrEqual(24 * 1024);
  });

  it('has schemas that compile under ajv strict mode (draft 2020-12), as strict clients compile them', () => {
    const failures: string[] = [];
    for (const t of tools) {
      for (const [kind, schema] of [
        ['input', t.inputSchema],
        ['output', t.outputSchema],
      ] as const) {
        try {
          new Ajv2020({ strict: true }).compile(schema!);
        } catch (error) {
          failures.push(`${t.name} ${kind}: ${(error as Error).message}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('uses no `type` arrays at any depth: Gemini and other function-declaration subsets reject them', () => {
    const arrays = tools.flatMap((t) => [
      ...nodesWhere(t.inputSchema, (n) => Array.isArray(n.type)).map((at) => `${t.name} input ${at}`),
      ...nodesWhere(t.outputSchema, (n) => Array.isArray(n.type)).map((at) => `${t.name} output ${at}`),
    ]);
    expect(arrays).toEqual([]);
  });

  it('has no empty subschema `{}` anywhere (the MCP Inspector warns of one with no validation keyword)', () => {
    const empty = tools.flatMap((t) => [
      ...emptySubschemas(t.inputSchema).map((at) => `${t.name} input ${at}`),
      ...emptySubschemas(t.outputSchema).map((at) => `${t.name} output ${at}`),
    ]);
    expect(empty).toEqual([]);
  });

  it('tells clients that unknown argument names are refused, at every depth of the input', () => {
    const open = tools.flatMap((t) =>
      nodesWhere(
        t.inputSchema,
        (n) => (n.type === 'object' || n.properties !== undefined) && n.additionalProperties !== false,
      ).map((at) => `${t.name} ${at}`),
    );
    expect(open).toEqual([]);
  });
});

/** One file per tool: a change to one tool's public contract shows as a diff of that tool's file alone. */
const snapshotDir = new URL('./__snapshots__/', import.meta.url);
const snapshotted = (existsSync(snapshotDir) ? readdirSync(snapshotDir, { withFileTypes: true }) : [])
  .filter((f) => f.isFile() && f.name.endsWith('.json'))
  .map((f) => f.name.slice(0, -'.json'.length));

describe('each tool as served over tools/list', () => {
  it.each([...new Set([...TOOLS.map((t) => t.name), ...snapshotted])])(
    '%s matches its snapshot: a changed name, description or schema is an API change',
    async (name) => {
      const tool = tools.find((t) => t.name === name);
      expect(tool, `${name}.json is the snapshot of a tool that is no longer served: delete it`).toBeDefined();
      // Outside `-u`, a missing snapshot is a failure, not a file to write: CI must not accept a new contract unseen.
      if (expect.getState().snapshotState.snapshotUpdateState !== 'all') {
        expect(
          existsSync(new URL(`${name}.json`, snapshotDir)),
          `no snapshot for ${name}: run vitest with -u and review it`,
        ).toBe(true);
      }
      await expect(JSON.stringify(tool, null, 2) + '\n').toMatchFileSnapshot(`./__snapshots__/${name}.json`);
    },
  );
});

/** JSON pointers of the schema nodes (objects anywhere in it) that match. */
function nodesWhere(schema: unknown, match: (node: Record<string, unknown>) => boolean, at = '#'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const here = !Array.isArray(schema) && match(schema as Record<string, unknown>) ? [at] : [];
  return [...here, ...Object.entries(schema).flatMap(([k, v]) => nodesWhere(v, match, `${at}/${k}`))];
}

/** Keywords whose value is one subschema, a map of subschemas, or a list of them (JSON Schema 2020-12 and draft 7). */
const ONE_SCHEMA = [
  'additionalProperties',
  'items',
  'additionalItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
];
const SCHEMA_MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
const SCHEMA_LIST = ['anyOf', 'allOf', 'oneOf', 'prefixItems', 'items'];

/** JSON pointers of the subschemas that are `{}`: valid, and accepting anything, but with no keyword at all. */
function emptySubschemas(schema: unknown, at = '#'): string[] {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return [];
  const node = schema as Record<string, unknown>;
  if (at !== '#' && Object.keys(node).length === 0) return [at];
  return Object.entries(node).flatMap(([k, v]) => {
    if (ONE_SCHEMA.includes(k) && !Array.isArray(v)) return emptySubschemas(v, `${at}/${k}`);
    if (SCHEMA_LIST.includes(k) && Array.isArray(v)) return v.flatMap((s, i) => emptySubschemas(s, `${at}/${k}/${i}`));
    if (SCHEMA_MAP.includes(k) && v && typeof v === 'object')
      return Object.entries(v).flatMap(([name, s]) => emptySubschemas(s, `${at}/${k}/${name}`));
    return [];
  });
}

describe('the registry, manifest.json and README agree', () => {
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', root), 'utf8')) as {
    tools: Array<{ name: string; description: string }>;
  };
  const readme = readFileSync(new URL('README.md', root), 'utf8');

  it('manifest.json lists the same tools', () => {
    expect(manifest.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    for (const t of manifest.tools) expect(t.description.length).toBeGreaterThan(10);
  });

  it("the README's tool table lists the same tools with their titles", () => {
    // The table of the Tools section (other sections have tables of `names` too: the metrics).
    const section = readme.slice(
      readme.indexOf('\n## Tools\n'),
      readme.indexOf('\n## ', readme.indexOf('\n## Tools\n') + 1),
    );
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]!.trim()]);
    expect(rows).toEqual(TOOLS.map((t) => [t.name, t.title]));
  });
});
