import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localKey } from '../../src/login/local-key.js';
import { startLoginFlow } from '../../src/login/login-flow.js';
import { TokenClient } from '../../src/login/token-client.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { accountOf } from '../helpers/login.js';

let sim: Simulator;
beforeEach(async () => {
  sim = await startSimulator({ users: 40, rateLimit: false, warm: false, oauth: { autoApprove: true } });
});
afterEach(() => sim.close());

describe('the loopback redirect listener', () => {
  it('takes the first redirect only: a repeated one is refused, so the code is never spent twice', async () => {
    const tokens = new TokenClient(accountOf(sim));
    try {
      const flow = await startLoginFlow({ tokens, scopes: ['read'], timeoutMs: 10_000 });
      const approved = await fetch(flow.url, { redirect: 'manual' });
      const callback = approved.headers.get('location')!;
      const [first, second] = await Promise.all([fetch(callback), fetch(callback)]);
      expect([first.status, second.status].sort()).toEqual([200, 409]);
      const login = await flow.result;
      // Had the code been exchanged twice, the simulator would have revoked what it issued.
      const res = await fetch(`${sim.url}/analytics/v0/dau-count`, {
        headers: { authorization: `Bearer ${login.access_token}` },
      });
      expect(res.status).toBe(200);
      // And nothing answers once it is over.
      await expect(fetch(callback)).rejects.toThrow();
    } finally {
      await tokens.close();
    }
  });
});

describe('the local key', () => {
  it('is made once, whole, even when many start at the same moment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oam-key-'));
    try {
      const keys = await Promise.all(Array.from({ length: 30 }, () => localKey({ XDG_CONFIG_HOME: dir })));
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
