import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as S from '../../helpers/schemas.js';
import { simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 10 });
});
afterAll(() => c.close());

describe('GET /api/changelog', () => {
  it('serves pages of 10, zero-based, newest first, with total and hasMore', async () => {
    const first = S.changelog.parse((await c.get('/api/changelog', {}, null)).body);
    expect(first).toMatchObject({ page: 0, pageSize: 10, client: 'all', hasMore: true });
    expect(first.entries).toHaveLength(10);
    const dates = first.entries.map((e: any) => e.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const lastPage = Math.ceil(first.total / 10) - 1;
    const last = S.changelog.parse((await c.get('/api/changelog', { page: lastPage }, null)).body);
    expect(last.hasMore).toBe(false);
    expect(last.entries.length).toBe(first.total - lastPage * 10);
    const beyond = S.changelog.parse((await c.get('/api/changelog', { page: lastPage + 1 }, null)).body);
    expect(beyond).toMatchObject({ entries: [], hasMore: false, total: first.total });
  });

  it.each(['vscode', 'jetbrains', 'cli', 'code-review', 'agent-platform', 'models'])(
    'filters by client %s',
    async (client) => {
      const page = S.changelog.parse((await c.get('/api/changelog', { client }, null)).body);
      expect(page.client).toBe(client);
      expect(page.total).toBeGreaterThan(0);
      expect(page.entries.every((e: any) => e.client === client)).toBe(true);
    },
  );

  it('reaches every entry exactly once when paged', async () => {
    const ids: string[] = [];
    for (let page = 0; ; page++) {
      const body = S.changelog.parse((await c.get('/api/changelog', { page }, null)).body);
      ids.push(...body.entries.map((e: any) => e.id));
      if (!body.hasMore) {
        expect(ids).toHaveLength(body.total);
        break;
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});
