import { traceIds } from './telemetry/spans.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

/**
 * JSON lines on stderr (stdout belongs to the protocol). Every string passes through `scrub`, which
 * removes secrets and, in pseudonymous mode, emails.
 */
export function createLogger(
  level: LogLevel,
  scrub: (text: string) => string,
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  const emit = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] > ORDER[level]) return;
    // Each string is scrubbed before it is JSON-encoded, so escapes never split a secret or an email.
    // During a call, its trace's ids: a line leads to the trace, and the trace to its lines.
    const record = { time: new Date().toISOString(), level: at, message, ...traceIds(), ...fields };
    write(`${JSON.stringify(record, (_key, value: unknown) => (typeof value === 'string' ? scrub(value) : value))}\n`);
  };
  return {
    error: (m, f) => emit('error', m, f),
    warn: (m, f) => emit('warn', m, f),
    info: (m, f) => emit('info', m, f),
    debug: (m, f) => emit('debug', m, f),
  };
}

/**
 * Replaces each secret, wherever it appears, with a fixed marker; so is any bearer credential, whoever's it
 * is (an upstream that echoes the Authorization header, a proxy URL with a password).
 */
export function secretScrubber(
  secrets: Array<string | undefined> | (() => Array<string | undefined>),
): (text: string) => string {
  // Read on every call: a login adds its refreshed tokens to the list as they arrive.
  const present = () =>
    (typeof secrets === 'function' ? secrets() : secrets).filter(
      (s): s is string => typeof s === 'string' && s.length >= 4,
    );
  return (text) =>
    present()
      .reduce((t, s) => t.split(s).join('[redacted]'), text)
      .replace(BEARER, '$1[redacted]')
      .replace(URL_USERINFO, '$1[redacted]@');
}

// A credential has eight or more characters with a digit or a symbol in them, so prose ("Bearer token required") stays.
const BEARER = /(\bBearer\s+)(?=[A-Za-z0-9\-._~+/]*[0-9\-._~+/])[A-Za-z0-9\-._~+/]{8,}=*/gi;
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+(?::[^\s/@]*)?@/gi;
