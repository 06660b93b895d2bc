// Apart from redis-connection.ts, whose client library is loaded only when a Redis URL is given.
/**
 * The command's answer, or a rejection once `ms` have passed (a late reply, or its failure, is dropped).
 * node-redis 6 has a per-command `timeout` (CommandOptions), but it only runs while a command waits to be
 * written: once the command is on the socket the client waits for its reply as long as the socket stays
 * open, so a Redis that stops answering (paused, behind a partition) would hold every caller. Hence a race.
 */
export function redisWithin<T>(ms: number, command: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  command.catch(() => {});
  return Promise.race([command, late]).finally(() => clearTimeout(timer));
}
