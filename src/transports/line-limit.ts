import { Transform, type TransformCallback } from 'node:stream';

/** The most one stdio message may hold, without its newline: the SDK's own read-buffer bound. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface OversizedLine {
  bytes: number;
  /** The request id when the line's start or end names it unambiguously; otherwise the sender cannot be told. */
  id: string | number | undefined;
}

const EDGE = 256;

/**
 * Passes newline-delimited input through one complete line at a time, and swallows a line longer than `limit`
 * bytes: it counts and discards it (keeping only its first and last bytes) and reports it once the newline or
 * the end of input arrives. Memory stays bounded by `limit`, and the next line reaches the reader intact.
 */
export class LineLimit extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private oversized = false;
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  constructor(
    private readonly limit: number,
    private readonly onOversized: (line: OversizedLine) => void,
    /** Whether the reader gets a line that fits; false: it was answered here (see envelopeError). */
    private readonly accept: (line: Buffer) => boolean = () => true,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      this.append(chunk.subarray(start, end));
      if (newline === -1) break;
      this.endLine();
      start = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.oversized) this.report();
    else if (this.size > 0) this.deliver(Buffer.concat(this.parts));
    done();
  }

  private append(segment: Buffer): void {
    if (segment.length === 0) return;
    if (!this.oversized && this.size + segment.length > this.limit) {
      this.head = Buffer.concat([...this.parts, segment.subarray(0, EDGE)]).subarray(0, EDGE);
      this.parts = [];
      this.oversized = true;
    }
    this.size += segment.length;
    if (!this.oversized) this.parts.push(segment);
    else this.tail = Buffer.concat([this.tail, segment.subarray(-EDGE)]).subarray(-EDGE);
  }

  private endLine(): void {
    if (this.oversized) this.report();
    else this.deliver(Buffer.concat([...this.parts, Buffer.from('\n')]));
    this.parts = [];
    this.size = 0;
  }

  private deliver(line: Buffer): void {
    if (this.accept(line)) this.push(line);
  }

  private report(): void {
    this.onOversized({ bytes: this.size, id: requestIdOf(this.head.toString('utf8'), this.tail.toString('utf8')) });
    this.oversized = false;
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
  }
}

const ID = String.raw`"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")`;
// At the very start of the object, or as the last member before the closing brace: only a top-level "id" can sit there.
const AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${ID}`);
const AT_END = new RegExp(String.raw`[{,]\s*${ID}\s*\}\s*$`);

/** The id of a JSON-RPC request from the edges of its text (SDK clients write it first or last). */
export function requestIdOf(head: string, tail: string): string | number | undefined {
  const found = AT_START.exec(head)?.[1] ?? AT_END.exec(tail)?.[1];
  if (found === undefined) return undefined;
  return found.startsWith('"') ? (JSON.parse(found) as string) : Number(found);
}
