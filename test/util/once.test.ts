import { describe, expect, it } from 'vitest';
import { once } from '../../src/util/once.js';

describe('once', () => {
  it('closes a thing once however many ask, and every caller waits for that one close', async () => {
    let closes = 0;
    let finish!: () => void;
    const close = once(() => {
      closes++;
      return new Promise<void>((done) => (finish = done));
    });
    const first = close();
    const second = close();
    expect(closes).toBe(1);
    expect(second).toBe(first);
    finish();
    await Promise.all([first, second, close()]);
    expect(closes).toBe(1);
  });

  it('gives a failed close to every caller rather than trying again', async () => {
    let closes = 0;
    const close = once(async () => {
      closes++;
      throw new Error('socket already gone');
    });
    await expect(close()).rejects.toThrow('socket already gone');
    await expect(close()).rejects.toThrow('socket already gone');
    expect(closes).toBe(1);
  });
});
