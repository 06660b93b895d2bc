import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { destinationSecrets, loadDestinations, urlProblem } from '../../src/alerts/destinations.js';
import { ConfigError } from '../../src/config/config.js';
import { WEBHOOK_SECRET } from '../helpers/alerts/receivers.js';

const dir = mkdtempSync(join(tmpdir(), 'alerts-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fileOf = (content: unknown) => {
  const path = join(dir, `alerts-${n++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const ENV = { HOOK_SECRET: WEBHOOK_SECRET, SMTP_URL: 'smtps://bot:s3cret-pass@smtp.example.com' };
const HOOK = {
  name: 'hook',
  kind: 'webhook',
  url: 'https://hooks.example.com/a',
  secret_env: 'HOOK_SECRET',
  events: ['*'],
};
const SLACK = { name: 'slack', kind: 'slack', url: 'https://hooks.slack.com/services/T/B/X', events: ['sync.failed'] };
const MAIL = {
  ...{ name: 'mail', kind: 'email', smtp_url_env: 'SMTP_URL', from: 'bot@example.com', to: 'admins@example.com' },
  ...{ events: ['budget.threshold'], min_excess_usd: 50, identities: ['Ana@Example.com', 's:nightly'], teams: ['eng'] },
};
const refusal = (content: unknown, env: NodeJS.ProcessEnv = ENV) => {
  try {
    loadDestinations(fileOf(content), env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('the alerts file, read and checked at start', () => {
  it('reads one destination of each kind, secrets from the environment', () => {
    const [hook, slack, mail] = loadDestinations(fileOf({ destinations: [HOOK, SLACK, MAIL] }), ENV);
    expect(hook).toMatchObject({ kind: 'webhook', name: 'hook', events: ['*'], secret: WEBHOOK_SECRET });
    expect(slack).toMatchObject({ kind: 'slack', url: new URL(SLACK.url), events: ['sync.failed'] });
    expect(mail).toMatchObject({
      ...{ kind: 'email', smtpUrl: ENV.SMTP_URL, to: ['admins@example.com'], minExcessUsd: '50' },
      ...{ identities: ['u:ana@example.com', 's:nightly'], teams: ['eng'] },
    });
    expect(destinationSecrets([hook!, slack!, mail!])).toEqual([WEBHOOK_SECRET, SLACK.url, ENV.SMTP_URL]);
  });

  it.each([
    ['https://hooks.example.com/x', undefined],
    ['http://127.0.0.1:8080/x', undefined],
    ['http://[::1]:8080/x', undefined],
    ['http://localhost/x', undefined],
    ['http://hooks.example.com/x', /must be https .*got http:\/\/hooks\.example\.com/],
    ['http://127.0.0.2/x', /must be https/],
    ['ftp://127.0.0.1/x', /must be https/],
    ['hooks.example.com', /is not a URL/],
  ])('takes %s as a URL: %s', (url, problem) => {
    const got = urlProblem(url);
    if (problem) expect(got).toMatch(problem);
    else expect(got).toBeUndefined();
  });

  it('refuses every problem at once, each with its path, and says what to do', () => {
    const message = refusal(
      {
        destinations: [
          { ...HOOK, url: 'http://hooks.example.com/a' },
          { ...SLACK, name: 'x', events: ['budget.crossed'] },
          { ...MAIL, name: 'y', kind: 'pager' },
        ],
      },
      ENV,
    );
    expect(message).toMatch(/the alerts file .* \(--alerts-file\) cannot be used:/);
    expect(message).toMatch(/destinations\.1\.events\.0: takes "\*" or event types: anomaly\.detected/);
    expect(message).toMatch(/destinations\.2\.kind: kind takes webhook, slack or email/);
    expect(message).toMatch(/Fix it \(the README's "Alerts" section has one destination of each kind\)/);
    const urls = refusal({ destinations: [{ ...HOOK, url: 'http://hooks.example.com/a' }] }, {});
    expect(urls).toMatch(/destinations\.0\.url must be https/);
    expect(urls).toMatch(/destinations\.0\.secret_env: the variable HOOK_SECRET must hold a Standard Webhooks secret/);
  });

  it.each([
    [{ destinations: [HOOK, HOOK] }, /destinations: names each destination once/],
    [{ destinations: [{ ...HOOK, secret: 'whsec_abc' }] }, /destinations\.0: Unrecognized key: "secret"/],
    [{ destinations: [{ ...MAIL, to: [] }] }, /destinations\.0\.to/],
    [
      { destinations: [{ ...MAIL, min_excess_usd: '-5' }] },
      /destinations\.0\.min_excess_usd: is a decimal of 0 or more/,
    ],
    [{ destinations: [{ ...SLACK, events: [] }] }, /destinations\.0\.events: lists at least one event type/],
    [{ destinations: [{ ...MAIL }] }, /destinations\.0\.smtp_url_env: the variable SMTP_URL must hold/],
    ['{ "destinations": [', /JSON/],
    [{ hooks: [] }, /destinations: .*expected array/i],
  ])('refuses %j', (content, message) => {
    const env = content === '{ "destinations": [' ? ENV : { HOOK_SECRET: WEBHOOK_SECRET };
    expect(refusal(content, env)).toMatch(message);
  });

  it('never writes a secret in its messages', () => {
    const message = refusal({ destinations: [{ ...HOOK, url: 'http://x.example.com' }] }, ENV);
    expect(message).not.toContain(WEBHOOK_SECRET);
  });

  it("refuses the server's start, exit 2, whether or not it syncs", () => {
    const file = fileOf({ destinations: [{ ...SLACK, url: 'http://hooks.example.com/x' }] });
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--alerts-file', file], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      timeout: 30_000,
      input: '',
      env: { PATH: process.env.PATH ?? '', ANALYTICS_API_TOKEN: 't', ANALYTICS_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/destinations\.0\.url must be https .*got http:\/\/hooks\.example\.com/);
  }, 40_000);
});
