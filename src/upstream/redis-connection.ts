import { createClient } from 'redis';

function create(url: string) {
  return createClient({
    url,
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
 * One Redis connection per process, shared by the cache and the rate limits. Redis is an optimisation,
 * never a dependency of an answer: commands fail at once while it is away (no offline queue), callers
 * fall back to what they have locally, and the client reconnects by itself in the background.
 */
export interface SharedRedis {
  client: RedisClient;
  /** True while commands can be sent. */
  ready(): boolean;
  /** Prefix of every key this server writes, so that tests and tenants do not meet. */
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
    close: async () => {
      if (client.isOpen) await client.close().catch(() => {});
      else client.destroy();
    },
  };
}
