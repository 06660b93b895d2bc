import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/mcp.js';
import { TOOL_TEST_USERS } from '../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

describe('get_changelog', () => {
  it('returns a page of entries', async () => {
    const a = await h.call('get_changelog', { client: 'cli', page: 0 });
    expect(a.structured).toMatchObject({ client: 'cli', page: 0, page_size: 10 });
    expect(a.structured.entries.length).toBeGreaterThan(0);
    expect(a.text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(a.structured.entries.length);
  });
});
