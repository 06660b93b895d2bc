import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config.js';
import { alertsFileSchema, filterOf, type AlertFilter, type DestinationSpec } from '../config/options-alerts.js';

/** A destination ready to deliver to: its filter, as the file gives it, and its secret read from the environment. */
export type Destination = AlertFilter &
  (
    | { kind: 'webhook'; url: URL; secret: string }
    | { kind: 'slack'; url: URL }
    | { kind: 'email'; smtpUrl: string; from: string; to: string[] }
  );

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** `https`, or `http` on loopback (a receiver of tests); else why not. */
export function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return `must be https (http only to 127.0.0.1, ::1 or localhost), got ${url.protocol}//${url.host}`;
}

/** The destination ready, or what is wrong with it, each problem with its path in the file. */
function ready(spec: DestinationSpec, at: string, env: NodeJS.ProcessEnv): Destination | string[] {
  const filter = filterOf(spec);
  if (spec.kind === 'email') {
    const smtpUrl = env[spec.smtp_url_env] ?? '';
    if (!/^smtps?:\/\//.test(smtpUrl))
      return [`${at}.smtp_url_env: the variable ${spec.smtp_url_env} must hold an smtp:// or smtps:// URL`];
    return { ...filter, kind: 'email', smtpUrl, from: spec.from, to: spec.to };
  }
  const problems: string[] = [];
  const bad = urlProblem(spec.url);
  if (bad) problems.push(`${at}.url ${bad}`);
  if (spec.kind === 'slack') return problems.length ? problems : { ...filter, kind: 'slack', url: new URL(spec.url) };
  const secret = env[spec.secret_env] ?? '';
  if (!/^whsec_[A-Za-z0-9+/=]{16,}$/.test(secret))
    problems.push(`${at}.secret_env: the variable ${spec.secret_env} must hold a Standard Webhooks secret, whsec_…`);
  return problems.length ? problems : { ...filter, kind: 'webhook', url: new URL(spec.url), secret };
}

/**
 * Reads and checks the alerts file at start: every problem listed with its path (`destinations.1.url …`), and
 * what to do. Secrets come from the environment variables the file names; the file holds none.
 */
export function loadDestinations(path: string, env: NodeJS.ProcessEnv): Destination[] {
  const refuse = (problems: string[]) =>
    new ConfigError(
      `the alerts file ${path} (--alerts-file) cannot be used:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
        'Fix it (the README\'s "Alerts" section has one destination of each kind), or unset --alerts-file.',
    );
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw refuse([(error as Error).message]);
  }
  const parsed = alertsFileSchema.safeParse(raw);
  if (!parsed.success) throw refuse(parsed.error.issues.map((i) => `${i.path.join('.') || 'the file'}: ${i.message}`));
  const out: Destination[] = [];
  const problems: string[] = [];
  parsed.data.destinations.forEach((spec, i) => {
    const d = ready(spec, `destinations.${i}`, env);
    if (Array.isArray(d)) problems.push(...d);
    else out.push(d);
  });
  if (problems.length) throw refuse(problems);
  return out;
}

/** The organization alerts name: --alerts-organization, else the API's host (the API names none). */
export const organizationOf = (config: { alertsOrganization?: string | undefined }, baseUrl: string): string =>
  config.alertsOrganization ?? new URL(baseUrl).host;

/** What must never reach a log: webhook secrets, SMTP URLs (passwords), Slack webhook URLs (they are the key). */
export function destinationSecrets(destinations: readonly Destination[]): string[] {
  return destinations.flatMap((d) =>
    d.kind === 'webhook' ? [d.secret] : d.kind === 'slack' ? [d.url.href] : [d.smtpUrl],
  );
}
