import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { orgChartCsv } from '../../../src/simulator/data/org-chart-csv.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../src/simulator/index.js';
import { harness, type Harness, type HarnessOptions } from '../mcp.js';
import { NOW } from '../sim.js';

/** What the tests of answers by team share: one simulator, a scratch folder for directory files, and servers. */
export interface TeamHarness {
  /** The simulator, up before the file's first test. */
  readonly sim: Simulator;
  /** The scratch folder, removed after the file's tests. */
  readonly dir: string;
  /** Writes `text` as `name` in the scratch folder; its path. */
  file(name: string, text: string): string;
  /**
   * The simulator's own org chart (people in two teams, in none, movers) as a directory file; `primaryOnly`: each
   * person in their primary team only, so that no one counts in two groups.
   */
  chartFile(name: string, options?: { primaryOnly?: boolean }): string;
  /** A server over the simulator reading `directory` (none: no directory); closed after the file's tests at the latest. */
  harness(directory: string | undefined, options?: HarnessOptions): Promise<Harness>;
}

/**
 * Starts a simulator (300 users, the tests' clock, no rate limit, token `rw`, then `sim`) before the file's tests,
 * runs `setup` on it, and after them closes every server `harness` started, the simulator and the scratch folder.
 */
export function teamHarness(
  name: string,
  sim: SimulatorOptions = {},
  setup: (t: TeamHarness) => Promise<void> = async () => {},
): TeamHarness {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const open = new Set<Harness>();
  let simulator: Simulator | undefined;
  const file = (fileName: string, text: string) => {
    const path = join(dir, fileName);
    writeFileSync(path, text);
    return path;
  };
  const t: TeamHarness = {
    get sim() {
      if (!simulator) throw new Error('teamHarness: the simulator starts in beforeAll; read t.sim inside a test');
      return simulator;
    },
    dir,
    file,
    chartFile(fileName, options = {}) {
      const chart = t.sim.state.orgChart();
      const rows = options.primaryOnly ? chart.rows.filter((r) => r.primary !== false) : chart.rows;
      return file(fileName, orgChartCsv({ ...chart, rows }));
    },
    async harness(directory, options = {}) {
      const config = { ...(directory === undefined ? {} : { directory }), ...options.config };
      const h = await harness({ simulator: t.sim, ...options, config });
      open.add(h);
      const close = h.close.bind(h);
      h.close = async () => {
        open.delete(h);
        await close();
      };
      return h;
    },
  };
  beforeAll(async () => {
    simulator = await startSimulator({ users: 300, now: NOW, rateLimit: false, token: 'rw', ...sim });
    await setup(t);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([...open].map((h) => h.close()));
    await simulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return t;
}
