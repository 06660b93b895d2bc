import { createClient } from 'redis';
import { once } from '../../util/once.js';

/** How this server's connections are named in Redis (CLIENT LIST), so that an operator can tell them apart. */
export const REDIS_CLIENT_NAME = 'org-analytics-mcp';

function create(url: string) {
  return createClient({
    url,
    name: REDIS_CLIENT_NAME,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 1_000,
      // Back off to at most 5 s between attempts, forever: the server recovers by itself when Redis returns.
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 6), 5_000),
    },
  });
}
export type RedisClient = ReturnType<typeof create>;

/**
 * One Redis connection per process, shared by the cache and the rate limits (and by every tenant). Redis
 * is an optimisation, never a dependency of an answer: commands fail at once while it is away (no offline
 * queue), callers fall back to what they have locally, and the client reconnects by itself in the background.
 */
export interface SharedRedis {
  client: RedisClient;
  /** True while commands can be sent. */
  ready(): boolean;
  /** Prefix of every key this server writes, so that tests do not meet; tenants' keys carry their credential. */
  prefix: string;
  close(): Promise<void>;
}

export function connectRedis(
  url: string,
  options: { prefix?: string; onError?: (error: Error) => void; onReady?: () => void } = {},
): SharedRedis {
  const client = create(url);
  // An unhandled 'error' event would end the process; a Redis outage must not.
  client.on('error', (error: Error) => options.onError?.(error));
  client.on('ready', () => options.onReady?.());
  client
    .connect()
    .catch((error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))));
  return {
    client,
    ready: () => client.isReady,
    prefix: options.prefix ?? 'oam:',
    close: once(async () => {
      if (client.isOpen) await client.close().catch(() => {});
      else client.destroy();
    }),
  };
}
