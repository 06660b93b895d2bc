import { isIP } from 'node:net';

/** Whether a bind address only accepts connections from this machine: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^(0{0,4}:){5}(0{0,4}:)?0*1$/.test(h) || /^::ffff:127\./.test(h);
  return false;
}

/**
 * Why a non-loopback bind without caller authentication is refused: whoever reaches the port would read the
 * organization's data and change budgets with this server's own token.
 */
export function nonLoopbackRefusal(host: string): string {
  return (
    `refusing to serve MCP over HTTP on ${host} without caller authentication: anyone who can reach the port could read ` +
    `your organization's data and change budgets with the server's API token.\n` +
    `  Either let callers authenticate: --auth-issuer URL (your OAuth authorization server) with --public-url URL ` +
    `(the URL clients use for /mcp), and/or --api-keys-file FILE (keys made by org-analytics-mcp api-key create); ` +
    `see "Running it for a team" in the README.\n` +
    `  Or bind to loopback (--host 127.0.0.1, the default) and let remote users in through an SSH tunnel.`
  );
}

/** Hostnames a loopback server answers to: the usual localhost names plus the address it is bound to. */
export function loopbackHostnames(host: string): string[] {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  const bound = isIP(h) === 6 ? `[${h}]` : h;
  return [...new Set(['localhost', '127.0.0.1', '[::1]', bound])];
}
