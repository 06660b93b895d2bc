import type { PageSizes } from './route.js';
import type { IncomingMessage } from 'node:http';
import { ApiError, invalidArgument } from './errors.js';

const list = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');

/** Reads the query string, rejecting unknown and repeated parameters by name. */
export function readQuery(params: URLSearchParams, allowed: readonly string[]): Record<string, string | undefined> {
  const unknown = [...new Set([...params.keys()].filter((k) => !allowed.includes(k)))];
  if (unknown.length > 0) {
    throw invalidArgument(
      `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${list(unknown)}; accepted: ${allowed.length ? list(allowed) : 'none'}.`,
    );
  }
  const out: Record<string, string | undefined> = {};
  for (const name of allowed) {
    const values = params.getAll(name);
    if (values.length > 1)
      throw invalidArgument(`Query parameter '${name}' was given ${values.length} times; give it once.`);
    out[name] = values[0];
  }
  return out;
}

/** page_size: an integer of at least 1; above the endpoint's maximum it is clamped (the spec leaves this open). */
export function pageSizeOf(raw: unknown, { default: fallback, max }: PageSizes, from: 'query' | 'body'): number {
  if (raw === undefined) return fallback;
  // Query strings carry digits; a JSON body must carry a number.
  const value = from === 'query' && typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw invalidArgument(`page_size must be an integer of at least 1, got ${JSON.stringify(raw)}.`);
  if (value < 1) throw invalidArgument(`page_size must be at least 1, got ${value}.`);
  return Math.min(value, max);
}

export function booleanOf(raw: string | undefined, name: string): boolean {
  if (raw === undefined) return false;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw invalidArgument(`${name} must be 'true' or 'false', got '${raw}'.`);
}

export function rejectUnknownFields(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
  const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    throw invalidArgument(
      `Unknown field${unknown.length > 1 ? 's' : ''} ${list(unknown)} in ${where}; accepted: ${list(allowed)}.`,
    );
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringArrayOf(value: unknown, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw invalidArgument(`${name} must be an array of strings.`);
  return value as string[];
}

export function enumOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw invalidArgument(`${name} must be one of ${list(allowed)}, got ${JSON.stringify(value)}.`);
  }
  return value as T;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Reads the raw request body (bounded). */
export async function readBodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new ApiError(413, 'InvalidArgument', `Request body exceeds ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a JSON body; an empty body is `undefined`. */
export function parseJsonBody(raw: string): unknown {
  const text = raw.trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidArgument('Request body is not valid JSON.');
  }
}

/** The body as an object with only the given fields; an absent body is an empty object. */
export function bodyObject(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (body === undefined) return {};
  if (!isPlainObject(body)) throw invalidArgument('Request body must be a JSON object.');
  rejectUnknownFields(body, allowed, 'request body');
  return body;
}
