import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function medianStartMs(script: string, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [script, 'simulator', '--help'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${script} failed: ${r.stderr}`);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/** Start-up of the bundle (dist/cli.js and its shared chunks) against the same code as one ESM file per module. */
export async function benchStartup(print: (line: string) => void): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'oam-unbundled-'));
  try {
    await build({
      entryPoints: files(join(root, 'src')),
      outdir: join(out, 'src'),
      outbase: join(root, 'src'),
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
    });
    // Unbundled modules still import zod from node_modules, resolved from the project root.
    spawnSync('ln', ['-s', join(root, 'node_modules'), join(out, 'node_modules')]);
    spawnSync('cp', [join(root, 'package.json'), join(out, 'package.json')]);
    const runs = 15;
    const bundled = medianStartMs(join(root, 'dist/cli.js'), runs);
    const unbundled = medianStartMs(join(out, 'src/cli.js'), runs);
    print(
      `start-up to --help exit, median of ${runs}: bundled ${bundled.toFixed(1)} ms, unbundled ${unbundled.toFixed(1)} ms`,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
