import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/mcp.js';
import { YESTERDAY } from '../helpers/sim.js';

describe('a metric named twice is one column, where it was first named', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ sim: { users: 30 } });
  });
  afterAll(() => h.close());

  it.each([
    ['get_daily_usage', { range: 'last_7_days' }],
    ['get_user_activity', { range: 'last_7_days', sort_by: 'chat_messages' }],
    ['get_editor_language_activity', { date: YESTERDAY, sort_by: 'chat_messages' }],
  ])('%s', async (tool, args) => {
    const metrics = ['chat_messages', 'total_messages', 'chat_messages', 'total_messages'];
    const twice = await h.call(tool, { ...args, metrics });
    const once = await h.call(tool, { ...args, metrics: ['chat_messages', 'total_messages'] });
    expect(twice.isError, twice.text).toBe(false);
    expect(twice.structured.metrics).toEqual(['chat_messages', 'total_messages']);
    expect(twice.text.match(/total_messages/g)).toEqual(once.text.match(/total_messages/g));
    // The same answer as naming each once; only whether it came from the cache differs.
    expect({ ...twice.structured, freshness: undefined }).toEqual({ ...once.structured, freshness: undefined });
  });
});
