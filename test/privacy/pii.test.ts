import { describe, expect, it } from 'vitest';
import { Pseudonymizer } from '../../src/privacy/pii.js';

const p = new Pseudonymizer('pseudonymous', 'key');

describe('Pseudonymizer', () => {
  it.each([
    ["user 'alice.van-dijk@northwind.example' is not", /^user 'user-[0-9a-f]{12}@northwind\.example' is not$/],
    ['josé@x.io', /^user-[0-9a-f]{12}@x\.io$/],
    ['ops@localhost', /^user-[0-9a-f]{12}@localhost$/],
    ["o'brien@x.io", /^user-[0-9a-f]{12}@x\.io$/],
    ['end a@b.io.', /^end user-[0-9a-f]{12}@b\.io\.$/],
  ])('replaces the whole address in %j', (text, expected) => expect(p.text(text)).toMatch(expected));

  it('keeps distinct addresses distinct, and maps each back', () => {
    const a = p.email('a&b@x.io');
    const b = p.email('b@x.io');
    expect(a).not.toBe(b);
    expect(p.resolve(a)).toBe('a&b@x.io');
    expect(p.resolve(p.email("o'brien@x.io"))).toBe("o'brien@x.io");
  });

  it('is stable for a key, case-insensitively, and differs between keys', () => {
    expect(p.email('Ada@X.io')).toBe(p.email('ada@x.io'));
    expect(new Pseudonymizer('pseudonymous', 'other').email('ada@x.io')).not.toBe(p.email('ada@x.io'));
  });

  it('leaves text alone in full mode and leaves domains without a local part alone', () => {
    expect(new Pseudonymizer('full', 'k').text('ada@x.io')).toBe('ada@x.io');
    expect(p.text('(emails @northwind.example)')).toBe('(emails @northwind.example)');
    expect(p.text(p.text('ada@x.io'))).toBe(p.text('ada@x.io'));
  });
});
