import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config.js';

describe('the default of --confirm-writes', () => {
  const parse = (settings: Record<string, unknown>) =>
    configSchema.parse({ token: 't', baseUrl: 'https://api.example.com', ...settings }).confirmWrites;
  it('is always over HTTP with authenticated callers, auto otherwise, and never overrides what is given', () => {
    expect(parse({ transport: 'http', apiKeysFile: '/tmp/keys.json' })).toBe('always');
    expect(parse({ transport: 'http', authIssuer: 'https://id.example.com' })).toBe('always');
    expect(parse({ transport: 'http' })).toBe('auto');
    expect(parse({ apiKeysFile: '/tmp/keys.json' })).toBe('auto');
    expect(parse({ transport: 'http', apiKeysFile: '/tmp/keys.json', confirmWrites: 'never' })).toBe('never');
  });
});
