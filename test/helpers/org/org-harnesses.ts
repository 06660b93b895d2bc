import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { storedHarness, type StoreOptions } from '../history.js';
import { harness, type Harness } from '../mcp.js';
import { NOW } from '../sim.js';
import { writeOrgFile } from './org-files.js';

export interface OrgHarnesses {
  sim: Simulator;
  org: ReturnType<typeof writeOrgFile>;
  /** The directory of writeOrgFile (no one in two teams), with a history store when one was asked for. */
  single: Harness;
  /** The same with the first person in two teams. */
  overlap: Harness;
  /** The single directory, answers pseudonymous, groups under 5 people folded. */
  pseudo: Harness;
  close(): Promise<void>;
}

/** One simulator of 300 people and the three servers the tests by team ask: one directory, two teams, pseudonymous. */
export async function orgHarnesses(moveDay: string, store?: StoreOptions): Promise<OrgHarnesses> {
  const dir = mkdtempSync(join(tmpdir(), 'by-team-'));
  const sim = await startSimulator({ users: 300, now: NOW, rateLimit: false, token: 'rw' });
  const org = writeOrgFile(sim, dir, 'single.csv', { moveDay });
  const two = writeOrgFile(sim, dir, 'overlap.csv', { moveDay, overlap: true });
  const config = { directory: org.file };
  const single = store
    ? await storedHarness(store, { simulator: sim, config })
    : await harness({ simulator: sim, config });
  const overlap = await harness({ simulator: sim, config: { directory: two.file } });
  const pseudo = await harness({ simulator: sim, config: { ...config, pii: 'pseudonymous', minGroupSize: 5 } });
  return {
    sim,
    org,
    single,
    overlap,
    pseudo,
    async close() {
      await Promise.all([single.close(), overlap.close(), pseudo.close()]);
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
