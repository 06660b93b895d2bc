import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryStore } from '../../src/history/store/history-store.js';
import { openHistory } from '../../src/history/store/open-history.js';
import { recentAlerts } from '../../src/history/store/outbox/outbox-read.js';
import { receiver, verified, WEBHOOK_SECRET, type Receiver } from '../helpers/alerts/receivers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = 'test/helpers/alerts/child.ts';

/** Runs the child (see child.ts) until it prints its line for `mode`; answers it and the process. */
function child(path: string, url: string, mode: 'hang' | 'deliver') {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, path, url, mode], { cwd: root, stdio: 'pipe' });
  let out = '';
  const line = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const found = out.split('\n').find((l) => l.startsWith(prefix));
        if (found) resolve(found);
      };
      proc.stdout.on('data', (c: Buffer) => ((out += c.toString()), look()));
      proc.once('exit', () => (look(), reject(new Error(`the child exited before '${prefix}'`))));
    });
  const exited = new Promise<NodeJS.Signals | number | null>((r) => proc.once('exit', (code, sig) => r(sig ?? code)));
  return { proc, line, exited };
}

/**
 * `org-analytics-mcp alerts SUB` in a process of its own, as cron or a restart runs it (not spawnSync: the
 * receivers answer from this process).
 */
function alertsCommand(sub: string, path: string, alertsFile: string) {
  const args = ['--import', 'tsx', 'src/cli.ts', 'alerts', sub, '--history', path, '--alerts-file', alertsFile];
  const proc = spawn(process.execPath, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      ANALYTICS_API_TOKEN: 'alerts-test-token',
      ANALYTICS_BASE_URL: 'http://127.0.0.1:9',
      ANALYTICS_CACHE_DIR: 'none',
      HOOK_SECRET: WEBHOOK_SECRET,
    },
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    proc.once('exit', (status) => resolve({ status, stdout, stderr })),
  );
}

describe('alerts that outlive their process', () => {
  let dir: string;
  let hook: Receiver;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'alerts-killed-'));
    hook = await receiver();
  });
  afterAll(async () => {
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const fileFor = (url: string) => {
    const file = join(dir, `alerts-${Math.random()}.json`);
    const destinations = [{ name: 'hook', kind: 'webhook', url, secret_env: 'HOOK_SECRET', events: ['*'] }];
    writeFileSync(file, JSON.stringify({ destinations }));
    return file;
  };
  const open = async (path: string): Promise<HistoryStore> => (await openHistory({ kind: 'sqlite', path }, 'x'))!;

  it('SIGKILL between decision and delivery: the next process delivers what was queued', async () => {
    const path = join(dir, 'killed-before.sqlite');
    const run = child(path, hook.url, 'hang');
    const ids = (await run.line('queued ')).split(' ').slice(1);
    run.proc.kill('SIGKILL');
    expect(await run.exited).toBe('SIGKILL');
    expect(hook.received).toEqual([]);
    const done = await alertsCommand('deliver', path, fileFor(hook.url));
    expect(done.stderr).toContain('3 delivered, 0 still queued, 0 failed');
    expect(done.status).toBe(0);
    expect(hook.received.map((r) => verified(r).id).sort()).toEqual(ids.sort());
    const status = await alertsCommand('status', path, fileFor(hook.url));
    expect(status.stdout).toMatch(/^hook: 0 queued, 3 delivered, 0 failed$/m);
  }, 90_000);

  it('SIGKILL mid-delivery: the next start on this host delivers it again at once, under the same webhook-id', async () => {
    hook.received.length = 0;
    const path = join(dir, 'killed-during.sqlite');
    hook.hang = true;
    const run = child(path, hook.url, 'deliver');
    const ids = (await run.line('queued ')).split(' ').slice(1);
    for (let i = 0; i < 400 && hook.received.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    expect(hook.received).toHaveLength(3);
    run.proc.kill('SIGKILL');
    expect(await run.exited).toBe('SIGKILL');
    hook.hang = false;
    const store = await open(path);
    try {
      // Claimed by the killed process, its lease not over.
      expect((await recentAlerts(store)).every((r) => r.state === 'queued' && r.attempts === 0)).toBe(true);
    } finally {
      await store.close();
    }
    const done = await alertsCommand('deliver', path, fileFor(hook.url));
    expect(done.stderr).toContain('3 delivered, 0 still queued, 0 failed');
    const seen = hook.received.map((r) => verified(r).id);
    expect(seen.slice(3).sort()).toEqual(ids.sort());
    expect(seen.slice(0, 3).sort()).toEqual(ids.sort());
  }, 90_000);

  it('a receiver down for the whole run: still queued after it, delivered by the next process once up', async () => {
    const path = join(dir, 'down.sqlite');
    const later = await receiver();
    const url = later.url;
    const port = later.port;
    await later.close();
    const run = child(path, url, 'deliver');
    expect(await run.line('delivered ')).toBe('delivered 0 retried 3');
    expect(await run.exited).toBe(0);
    const store = await open(path);
    try {
      const rows = await recentAlerts(store);
      expect(rows.every((r) => r.state === 'queued' && r.attempts === 1 && /ECONNREFUSED/.test(r.lastError!))).toBe(
        true,
      );
    } finally {
      await store.close();
    }
    const up = await receiver(port);
    try {
      const done = await alertsCommand('deliver', path, fileFor(url));
      expect(done.stderr).toContain('3 delivered, 0 still queued, 0 failed');
      expect(new Set(up.received.map((r) => verified(r).id)).size).toBe(3);
    } finally {
      await up.close();
    }
  }, 90_000);
});
