// The layer rule (issue 33), checked by `npm run lint`. One list, lowest layer first: a file in src/ may import its
// own layer and the layers before it, never a later one. The README's folder map shows the same layers.
/** @type {Array<[name: string, paths: string[]]>} */
const LAYERS = [
  // Words and rules with no I/O: contract (the upstream API's names and limits), domain, util, and the plain
  // helpers everything reads: the options (config), the text formatting, the error base class, logger, version,
  // and the telemetry instruments (OpenTelemetry's API only, no-ops until runtime/telemetry.ts loads the SDK).
  [
    'contract, domain and util',
    ['contract/', 'domain/', 'util/', 'config/', 'format/', 'telemetry/', 'errors.ts', 'logger.ts', 'version.ts'],
  ],
  // The sources of data: the analytics API (its client, the credentials it signs in with: login), the organization's
  // directory (teams and cost centers, from a file or SCIM), what may leave about people (privacy), and the simulator
  // that stands in for the API (which imports none of this layer: see simulator-stands-alone).
  ['upstream', ['upstream/', 'directory/', 'login/', 'privacy/', 'simulator/']],
  // The store: keeping (store/), filling (sync/) and answering from it (serving/); the export reads it out.
  ['history', ['history/', 'export/']],
  ['insights', ['insights/']],
  ['tools', ['tools/']],
  // The MCP adapter, the callers it knows (auth) and the app views it serves.
  ['mcp', ['mcp/', 'auth/', 'ui/']],
  // What runs the server or a one-shot command: the transports, the commands, the runtime they build and the
  // warm-up/sync scheduler, and the alerts decided after a sync and delivered from the outbox.
  ['transports and commands', ['transports/', 'scim/', 'commands/', 'runtime/', 'warm/', 'alerts/']],
  ['cli', ['cli.ts', 'main.ts']],
];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pattern = (paths) => `^src/(${paths.map((p) => (p.endsWith('/') ? escape(p) : `${escape(p)}$`)).join('|')})`;
const everyLayer = pattern(LAYERS.flatMap(([, paths]) => paths));

module.exports = {
  forbidden: [
    ...LAYERS.slice(0, -1).map(([name, paths], i) => ({
      name: `layer: ${name}`,
      comment: `${name} imports no later layer (${LAYERS.slice(i + 1)
        .map(([n]) => n)
        .join(', ')}).`,
      severity: 'error',
      from: { path: pattern(paths) },
      to: { path: pattern(LAYERS.slice(i + 1).flatMap(([, later]) => later)) },
    })),
    {
      name: 'layer: every file has one',
      comment: 'A folder or root file of src/ that no layer names: add it to LAYERS.',
      severity: 'error',
      from: { path: '^src/', pathNot: everyLayer },
      to: {},
    },
    {
      name: 'simulator-stands-alone',
      comment:
        'The simulator is an independent oracle: it never imports the client, its domain rules or the MCP layer.',
      severity: 'error',
      from: { path: '^src/simulator/' },
      to: { path: '^src/', pathNot: '^src/(simulator/|contract/|util/|config/cli-(options|help)\\.ts$)' },
    },
    {
      name: 'mcp-sdk-stays-in-the-adapter',
      comment: 'Below the mcp layer nothing knows MCP: the tools return data, the server adapts it.',
      severity: 'error',
      from: {
        path: pattern(
          LAYERS.slice(
            0,
            LAYERS.findIndex(([name]) => name === 'mcp'),
          ).flatMap(([, paths]) => paths),
        ),
      },
      to: { path: 'node_modules/@modelcontextprotocol/' },
    },
    {
      name: 'no-circular',
      comment: 'test/layout.test.ts checks it too, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/ui/views/' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a type from a later layer ties the code to it all the same.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
