import type { ServerResponse } from 'node:http';

/** What the 'huge' fault sends by default: far more than any real page, as a memory test needs. */
export const DEFAULT_HUGE_BYTES = 300 * 1024 * 1024;

const HEAD = '{"users":[';
const RECORD = '{"user_email":"huge.page@example.com","date":"2026-11-20","total_messages":1},';
const CHUNK = RECORD.repeat(Math.ceil(65_536 / RECORD.length));

/**
 * Answers 200 with a JSON page of exactly `bytes` bytes, made as it is sent (never held whole in memory)
 * and paced by the socket, with or without a Content-Length. It stops when the client goes away.
 * `held`: the simulator's set of open responses, released when it closes.
 */
export function sendHugeBody(res: ServerResponse, bytes: number, withLength: boolean, held: Set<ServerResponse>): void {
  const tail = (n: number) => `{"pad":"${'x'.repeat(Math.max(0, n - 12))}"}]}`;
  const total = Math.max(bytes, HEAD.length + tail(0).length);
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    ...(withLength ? { 'content-length': total } : {}),
  });
  held.add(res);
  res.on('close', () => held.delete(res));
  let left = total - HEAD.length;
  res.write(HEAD);
  const pump = () => {
    while (!res.destroyed) {
      if (left <= CHUNK.length + 64) {
        res.end(tail(left));
        return;
      }
      left -= CHUNK.length;
      if (!res.write(CHUNK)) {
        res.once('drain', pump);
        return;
      }
    }
  };
  pump();
}
