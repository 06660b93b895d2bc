import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAlertsCommand } from '../../src/commands/alerts.js';
import { SAMPLE_EVENTS } from '../../src/alerts/samples.js';
import {
  blockKitProblems,
  receiver,
  smtpReceiver,
  verified,
  WEBHOOK_SECRET,
  type Receiver,
} from '../helpers/alerts/receivers.js';

const ENV = {
  ANALYTICS_API_TOKEN: 'alerts-command-token',
  ANALYTICS_BASE_URL: 'http://127.0.0.1:9',
  ANALYTICS_CACHE_DIR: 'none',
  ANALYTICS_LOG_LEVEL: 'error',
};

describe('org-analytics-mcp alerts test|deliver|status', () => {
  let dir: string;
  let hook: Receiver;
  let slack: Receiver;
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let file: string;
  let secrets: Record<string, string>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'alerts-command-'));
    [hook, slack, smtp] = await Promise.all([receiver(), receiver(), smtpReceiver()]);
    file = join(dir, 'alerts.json');
    writeFileSync(
      file,
      JSON.stringify({
        destinations: [
          { name: 'hook', kind: 'webhook', url: hook.url, secret_env: 'OAM_HOOK_SECRET', events: ['*'] },
          { name: 'slack', kind: 'slack', url: slack.url, events: ['sync.failed'] },
          {
            name: 'mail',
            kind: 'email',
            smtp_url_env: 'OAM_SMTP',
            from: 'a@x.example',
            to: 'b@x.example',
            events: ['*'],
          },
        ],
      }),
    );
    secrets = { OAM_HOOK_SECRET: WEBHOOK_SECRET, OAM_SMTP: smtp.url };
  });
  afterAll(async () => {
    await Promise.all([hook?.close(), slack?.close(), smtp?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });
  const run = async (argv: string[], env: Record<string, string> = {}) => {
    const lines: string[] = [];
    const args = [...argv, '--history', join(dir, 'history.sqlite'), '--alerts-file', file];
    const code = await runAlertsCommand(args, { ...ENV, ...secrets, ...env }, (l) => void lines.push(l));
    return { code, lines };
  };

  it('test: a sample of each event kind to each destination, each outcome printed', async () => {
    hook.script.push([500, 'down for a moment']);
    const { code, lines } = await run(['test']);
    expect(code).toBe(1);
    expect(lines).toHaveLength(3 * SAMPLE_EVENTS.length);
    expect(lines[0]).toBe('hook (webhook) anomaly.detected: not delivered: 500: down for a moment');
    for (const e of SAMPLE_EVENTS.slice(1)) expect(lines).toContain(`hook (webhook) ${e}: delivered (200)`);
    for (const e of SAMPLE_EVENTS) expect(lines).toContain(`slack (slack) ${e}: delivered (200)`);
    for (const e of SAMPLE_EVENTS) expect(lines).toContain(`mail (email) ${e}: delivered (200)`);
    const bodies = hook.received.map((r) => verified(r).body);
    expect(bodies.map((b) => b.type)).toEqual(SAMPLE_EVENTS.map(() => 'alert.test'));
    expect(bodies.map((b) => b.data.test_of)).toEqual(SAMPLE_EVENTS);
    expect(bodies.find((b) => b.data.test_of === 'budget.threshold')!.data.used).toBe('212.40');
    expect(new Set(bodies.map((b) => b.data.organization))).toEqual(new Set([new URL(ENV.ANALYTICS_BASE_URL).host]));
    for (const m of slack.received) expect(blockKitProblems(JSON.parse(m.body))).toEqual([]);
    expect(smtp.mails).toHaveLength(SAMPLE_EVENTS.length);
  });

  it('test --destination NAME: that one only; --pii pseudonymous applies to what it carries', async () => {
    hook.received.length = 0;
    const { code, lines } = await run(['test', '--destination', 'hook', '--pii', 'pseudonymous']);
    expect(code).toBe(0);
    expect(lines.every((l) => l.startsWith('hook (webhook) '))).toBe(true);
    const text = hook.received.map((r) => r.body).join('\n');
    expect(text).not.toContain('ana.souza@northwind.example');
    expect(text).not.toContain('omar.quispe');
    expect(text).toContain('"user_email":"user-');
    await expect(run(['test', '--destination', 'pager'])).rejects.toThrow(
      /no destination is named pager: the file names hook, slack, mail/,
    );
  });

  it('deliver and status: nothing queued; status prints the outbox', async () => {
    expect(await run(['deliver'])).toEqual({ code: 0, lines: [] });
    expect((await run(['status'])).lines).toEqual(['the outbox is empty']);
  });

  it('refuses what it cannot run: no subcommand, no alerts file, a bad file', async () => {
    await expect(runAlertsCommand(['send'], ENV)).rejects.toThrow(/say alerts test, alerts deliver or alerts status/);
    await expect(runAlertsCommand(['deliver', '--history', join(dir, 'h.sqlite')], ENV)).rejects.toThrow(
      /no destinations: give --alerts-file FILE/,
    );
    await expect(run(['deliver'], { OAM_HOOK_SECRET: 'hunter2' })).rejects.toThrow(
      /destinations\.0\.secret_env: the variable OAM_HOOK_SECRET must hold a Standard Webhooks secret, whsec_/,
    );
  });
});
