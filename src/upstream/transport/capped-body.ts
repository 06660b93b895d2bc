import type { Readable } from 'node:stream';
import { ResponseTooLargeError } from '../errors.js';

/** What a response body is read from: its headers and the stream undici hands over. */
interface Streamed {
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

const mb = (bytes: number) => `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;

/**
 * The body as text, read no further than `limit` bytes. A Content-Length over the limit is refused before
 * a byte is read; otherwise bytes are counted as they arrive, and the stream is destroyed (which aborts
 * the request and closes its connection) the moment they pass it. So memory holds at most `limit` bytes.
 */
export async function readCapped(res: Streamed, limit: number, endpoint: string, where: string): Promise<string> {
  const tooLarge = (what: string) => {
    res.body.destroy();
    return new ResponseTooLargeError(
      `${endpoint} (${where}) ${what}, over the ${mb(limit)} this server reads of one response`,
      endpoint,
      limit,
    );
  };
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(`announced ${mb(declared)}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge('sent more than that');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
