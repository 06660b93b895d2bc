import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDirectoryCheck } from '../../src/commands/directory-check.js';

const dir = mkdtempSync(join(tmpdir(), 'directory-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = runDirectoryCheck(
    argv,
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('directory check', () => {
  const inForce = file('now.csv', 'user_email,team,cost_center\na@x.com,Eng,CC1\nb@x.com,Eng,CC1\nc@x.com,Ops,CC2\n');

  it('prints what a new file would add, remove and move, changing nothing', () => {
    const next = file(
      'next.csv',
      'user_email,team,cost_center\na@x.com,Eng,CC9\nb@x.com,Ops,CC1\nd@x.com,Ops/Infra,CC2\n',
    );
    const r = run([next, '--directory', inForce]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('is valid: 3 identities in 3 teams');
    expect(r.out).toContain('added 1: d@x.com');
    expect(r.out).toContain('removed 1: c@x.com');
    expect(r.out).toContain('moved 1: b@x.com');
    expect(r.out).toContain('columns changed 1: a@x.com');
    const json = JSON.parse(run([next, '--directory', inForce, '--json']).out);
    expect(json).toMatchObject({ valid: true, added: ['u:d@x.com'], removed: ['u:c@x.com'], moved: ['u:b@x.com'] });
  });

  it('refuses a bad file with exit 1 and each problem by line and column', () => {
    const bad = file('bad.csv', 'user_email,team\nnope,Eng\n');
    const r = run([bad]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('line 2, column 1 (user_email): "nope" is not an email');
  });

  it('is a usage error without exactly one file', () => {
    expect(() => run([])).toThrow(/give one FILE/);
  });
});
