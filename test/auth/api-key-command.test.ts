import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-keys.js';

// Needs `npm run build` first, like test/cli.test.ts.
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'api-keys-'));
const file = join(dir, 'keys.json');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, 'api-key', ...args], { encoding: 'utf8', timeout: 15_000 });

describe('org-analytics-mcp api-key', () => {
  it('create prints the key and its id once on stdout, and the 0600 file keeps only its hash', () => {
    const r = run('create', '--role', 'write', '--tenant', 'acme', '--file', file);
    expect(r.status).toBe(0);
    const id = /^id: {2}(k_[0-9a-f]{8})$/m.exec(r.stdout)?.[1];
    const key = /^key: (oam_\S+)$/m.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    expect(key).toBeDefined();
    expect(r.stderr).toContain('not shown again');
    expect(r.stderr).not.toContain(key!);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(key!);
    expect(JSON.parse(text).keys[0]).toMatchObject({ id, role: 'write', tenant: 'acme' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(new ApiKeyStore(file).verify(key!)).toMatchObject({ id, role: 'write', tenant: 'acme' });
    expect(new ApiKeyStore(file).verify(`${key!}x`)).toBeUndefined();
  });

  it('revoke removes one key; a store already reading the file stops accepting it within seconds', async () => {
    const r = run('create', '--role', 'read', '--file', file);
    const id = /^id: {2}(\S+)$/m.exec(r.stdout)![1]!;
    const key = /^key: (\S+)$/m.exec(r.stdout)![1]!;
    const store = new ApiKeyStore(file);
    expect(store.verify(key)?.id).toBe(id);
    expect(run('revoke', id, '--file', file).status).toBe(0);
    expect(run('list', '--file', file).stdout).not.toContain(id);
    const started = Date.now();
    while (store.verify(key) && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 250));
    expect(store.verify(key)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('create makes a missing folder (0700) for the file (0600), as its help says', () => {
    const nested = join(dir, 'etc', 'org-analytics-mcp', 'keys.json');
    const r = run('create', '--role', 'read', '--file', nested);
    expect(r.stderr).not.toMatch(/ENOENT/);
    expect(r.status).toBe(0);
    expect(statSync(join(dir, 'etc', 'org-analytics-mcp')).mode & 0o777).toBe(0o700);
    expect(statSync(nested).mode & 0o777).toBe(0o600);
    expect(run('list', '--file', nested).stdout).toContain(/^id: {2}(\S+)$/m.exec(r.stdout)![1]!);
  });

  it('list on a missing file says so on stderr and exits 1, printing nothing on stdout', () => {
    const missing = join(dir, 'nowhere', 'keys.json');
    const r = run('list', '--file', missing);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`there is no keys file ${missing}`);
    expect(r.stderr).toContain('api-key create');
  });

  it.each([
    [['create', '--file', file], /--role must be read or write/],
    [['create', '--role', 'admin', '--file', file], /--role must be read or write, got 'admin'/],
    [['create', '--role', 'read'], /--file FILE is required/],
    [['revoke', 'k_00000000', '--file', file], /No key k_00000000/],
    [['rotate', '--file', file], /Unknown action 'rotate'/],
  ])('%j is a usage error, exit 2', (args, message) => {
    const r = run(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
