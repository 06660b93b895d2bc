import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';

/** A test secret of the Standard Webhooks kind (`whsec_` and base64 of 32 bytes). */
export const WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when it arrived. */
  at: number;
}

/** A local HTTP receiver: records what it gets and answers from a script of statuses (200 once it runs out). */
export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Statuses to answer next, in order; a status with a body as [status, body]. */
  script: Array<number | [number, string]>;
  /** Never answers while set (a receiver that hangs). */
  hang: boolean;
  close(): Promise<void>;
}

export async function receiver(port = 0, path = '/hook'): Promise<Receiver> {
  const held: Array<() => void> = [];
  const state: Receiver = {
    url: '',
    port: 0,
    received: [],
    script: [],
    hang: false,
    close: () =>
      new Promise((resolve) => {
        held.forEach((end) => end());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      state.received.push({ headers: req.headers, body, at: performance.now() });
      if (state.hang) return void held.push(() => res.destroy());
      const next = state.script.shift() ?? 200;
      const [status, text] = typeof next === 'number' ? [next, 'ok'] : next;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}${path}`;
  return state;
}

/** What a Standard Webhooks receiver does: verify the signature with the library, then read the body. */
export function verified(r: Received, secret = WEBHOOK_SECRET): { id: string; body: { type: string; data: any } } {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]),
  );
  const body = new Webhook(secret).verify(r.body, headers) as { type: string; data: any };
  return { id: headers['webhook-id']!, body };
}

/** What Slack checks of an incoming webhook's Block Kit message, as errors (none: well formed). */
export function blockKitProblems(message: any): string[] {
  const problems: string[] = [];
  if (typeof message.text !== 'string' || !message.text) problems.push('no text fallback');
  const blocks = message.blocks as any[];
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50) return [...problems, 'blocks: 1 to 50'];
  if (blocks[0].type !== 'header' || blocks[0].text?.type !== 'plain_text' || blocks[0].text.text.length > 150)
    problems.push('the first block is a header of plain text, at most 150 characters');
  for (const b of blocks) {
    if (b.type === 'section' && b.fields && (b.fields.length > 10 || b.fields.some((f: any) => f.text.length > 2000)))
      problems.push('a section has at most 10 fields of 2000 characters');
    if (b.type === 'table') {
      const rows = b.rows as any[][];
      if (rows.length > 100 || rows.some((r) => r.length !== rows[0]!.length || r.length > 20))
        problems.push('a table has at most 100 rows of the same length, at most 20 cells');
      if (rows.some((r) => r.some((c) => c.type !== 'raw_text' || typeof c.text !== 'string' || !c.text)))
        problems.push('table cells are raw_text with text');
    }
  }
  if (blocks.filter((b) => b.type === 'table').length > 1) problems.push('one table per message');
  return problems;
}

export interface Mail {
  from: string;
  to: string[];
  raw: string;
}

/** A local SMTP server (smtp-server), without TLS or login, recording each message whole. */
export async function smtpReceiver(): Promise<{ url: string; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
