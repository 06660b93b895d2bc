import { benchColdStartSideBySide } from './cold-start.bench.js';
import { benchComposite } from './composite.bench.js';
import { benchHttpThroughput } from './http-throughput.bench.js';
import { benchLargeOrg } from './large-org.bench.js';
import { benchAnswerSizes } from './mcp.bench.js';
import { benchSimulator } from './simulator.bench.js';
import { benchStartup } from './startup.bench.js';
import { benchUpstream } from './upstream.bench.js';
import { benchViews } from './views.bench.js';

// Figures, not pass/fail: each bench prints what it measured.
const print = (line: string) => process.stdout.write(`${line}\n`);
print(`node ${process.version}, ${new Date().toISOString()}`);
await benchStartup(print);
await benchColdStartSideBySide(print);
await benchAnswerSizes(print);
await benchSimulator(print);
await benchUpstream(print);
await benchHttpThroughput(print);
await benchLargeOrg(print);
await benchComposite(print);
await benchViews(print);
