import { spawn } from 'node:child_process';

/**
 * Opens `url` in the system browser without waiting for it; $BROWSER wins, as for gh and git. A machine
 * without one fails quietly: the URL is also printed, to be opened by hand.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): void {
  const [command, ...args] = env.BROWSER
    ? [env.BROWSER, url]
    : process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler', url]
        : ['xdg-open', url];
  try {
    const child = spawn(command!, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // The URL was printed; there is nothing more to do.
  }
}
