import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built binary; tests and benches that use it need `npm run build` first. */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface HttpBinary {
  child: ChildProcess;
  url: string;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts a Node script serving Streamable HTTP (by default dist/cli.js) and resolves once it says where. */
export async function startHttpBinary(args: string[], env: NodeJS.ProcessEnv, script = CLI): Promise<HttpBinary> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /Streamable HTTP at (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  return { child, url, stderr: () => err, exited };
}
