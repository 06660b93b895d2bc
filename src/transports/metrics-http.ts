import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, type Config } from '../config/config.js';
import { isLoopbackHost } from './loopback.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type MetricsConfig = Pick<Config, 'host' | 'metricsTokenEnv' | 'metricsPort'>;

/**
 * Whether an --http server serves /metrics at all: not with --no-metrics, nor on a bind other than loopback without
 * a token or a port of its own (then nothing of the SDK is loaded for it).
 */
export const servesMetrics = (config: MetricsConfig & Pick<Config, 'noMetrics'>): boolean =>
  !config.noMetrics &&
  (config.metricsPort !== undefined || config.metricsTokenEnv !== undefined || isLoopbackHost(config.host));

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The bearer token /metrics asks for (--metrics-token-env), or undefined; a named variable left empty is refused. */
function metricsToken(config: MetricsConfig, env: NodeJS.ProcessEnv): Buffer | undefined {
  const variable = config.metricsTokenEnv;
  if (!variable) return undefined;
  const token = env[variable]?.trim();
  if (!token)
    throw new ConfigError(
      `--metrics-token-env ${variable}: the variable ${variable} (the token Prometheus sends for /metrics) is not set.`,
    );
  return digest(token);
}

const refuse =
  (status: number, text: string, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    void res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(`${text}\n`);

/** `serve`, to callers with the token when there is one. */
function guarded(token: Buffer | undefined, serve: Handler): Handler {
  if (!token) return serve;
  const unauthorized = refuse(401, 'Bearer token required (--metrics-token-env)', { 'www-authenticate': 'Bearer' });
  return (req, res) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (m && timingSafeEqual(digest(m[1]!), token)) serve(req, res);
    else unauthorized(res);
  };
}

/**
 * /metrics as the --http port serves it: to anyone on a loopback bind, else only with the bearer token of
 * --metrics-token-env; refused, saying what to do, when neither, or when --metrics-port serves it instead.
 */
export function metricsOnHttpPort(config: MetricsConfig, env: NodeJS.ProcessEnv, serve: Handler): Handler {
  if (config.metricsPort !== undefined)
    return (_req, res) => refuse(404, `/metrics is served on port ${config.metricsPort} (--metrics-port)`)(res);
  const token = metricsToken(config, env);
  if (!token && !isLoopbackHost(config.host))
    return (_req, res) =>
      refuse(404, '/metrics is off on a bind other than loopback: give --metrics-token-env or --metrics-port')(res);
  return guarded(token, serve);
}

/** /metrics on its own port (--metrics-port) of --host: only /metrics, with the token when one is set. */
export async function serveMetricsPort(
  config: MetricsConfig & { metricsPort: number },
  env: NodeJS.ProcessEnv,
  serve: Handler,
): Promise<{ port: number; close: () => Promise<void> }> {
  const handler = guarded(metricsToken(config, env), serve);
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://metrics.local').pathname === '/metrics') return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Metrics are served at /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new ConfigError(
              `--metrics-port ${config.metricsPort}: the port is taken on ${config.host} (by --port, or another process): give another port, or 0 for any free one.`,
            )
          : error,
      ),
    );
    server.listen(config.metricsPort, config.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** /metrics for an --http server: the handler of its own port's /metrics, and its own port when --metrics-port. */
export async function metricsServing(
  config: MetricsConfig & Pick<Config, 'port'>,
  env: NodeJS.ProcessEnv,
  serve: Handler,
): Promise<{ onHttpPort: Handler; ownPort?: number; close: () => Promise<void> }> {
  const onHttpPort = metricsOnHttpPort(config, env, serve);
  const { metricsPort } = config;
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === config.port)
    throw new ConfigError(
      `--metrics-port ${metricsPort}: the port is taken by --port itself: give another port, or leave --metrics-port out to serve /metrics on ${metricsPort}.`,
    );
  const own = metricsPort === undefined ? undefined : await serveMetricsPort({ ...config, metricsPort }, env, serve);
  return { onHttpPort, ...(own ? { ownPort: own.port } : {}), close: async () => own?.close() };
}
