import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Simulator } from '../simulator/index.js';

/**
 * The demo's directory: the embedded simulator's organization chart (teams, cost centers, people in two teams or
 * none, recent moves), written as the CSV an HR export would be, so that team questions and chargeback work
 * out of the box. Removed when the demo stops.
 */
export async function demoDirectory(simulator: Simulator): Promise<{ file: string; remove(): void }> {
  const { orgChartCsv } = await import('../simulator/data/org-chart-csv.js');
  const dir = mkdtempSync(join(tmpdir(), 'org-analytics-mcp-demo-'));
  const file = join(dir, 'directory.csv');
  writeFileSync(file, orgChartCsv(simulator.state.orgChart()), { mode: 0o600 });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
