import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parquetReadObjects } from 'hyparquet';
import { runExportCommand } from '../../src/commands/export.js';

/** The built program: needs `npm run build` first. */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** `org-analytics-mcp export` in this process: its exit code, what it wrote on stdout, and what it said. */
export async function exportInProcess(argv: string[]): Promise<{ code: number; out: string; said: string }> {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => chunks.push(c));
  const said: string[] = [];
  const code = await runExportCommand(
    argv,
    { ANALYTICS_CACHE_DIR: 'none' },
    { stdout, say: (line) => said.push(line) },
  );
  return { code, out: Buffer.concat(chunks).toString('utf8'), said: said.join('\n') };
}

/** The built `org-analytics-mcp export`, as a person or cron runs it. */
export const exportBinary = (argv: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'export', ...argv], {
      env: { PATH: process.env.PATH ?? '', ANALYTICS_CACHE_DIR: 'none' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });

/** A Parquet file's rows, read back by hyparquet (a reader that is not the writer). */
export async function readParquet(file: string): Promise<Array<Record<string, unknown>>> {
  const bytes = readFileSync(file);
  return parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
}
