import type { Config } from '../config/config.js';
import { secretScrubber } from '../logger.js';
import type { Pseudonymizer } from './pii.js';

/** What leaves the server: every string passes the secret scrubber, then the pseudonymizer. */
export interface Redactor {
  text(text: string): string;
  value<T>(value: T): T;
}

export function redactorOf(deps: {
  config: Pick<Config, 'token' | 'piiKey'>;
  pii: Pseudonymizer;
  secrets?: Array<string | undefined>;
}): Redactor {
  const scrub = secretScrubber(() => [deps.config.token, deps.config.piiKey, ...(deps.secrets ?? [])]);
  const text = (t: string) => deps.pii.text(scrub(t));
  return {
    text,
    value: (v) => JSON.parse(JSON.stringify(v), (_k, x: unknown) => (typeof x === 'string' ? text(x) : x)) as typeof v,
  };
}
