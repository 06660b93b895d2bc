import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as S from '../../helpers/schemas.js';
import { simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 60 });
});
afterAll(() => c.close());

const GETS = [
  'dau-count',
  'dau',
  'daily-usage',
  'user-activity',
  'daily-user-activity-by-editor-language',
  'credit-usage-by-user',
];
const POSTS = ['cost-analytics', 'get-user-budget-overrides', 'set-user-budget-overrides'];
const validSet = {
  overrides: [
    {
      service_account_name: 'ci-pipeline',
      resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
      period: 'BUDGET_PERIOD_MONTHLY',
      config: { limit: '100' },
    },
  ],
};
const call = (path: string, token?: string | null) =>
  GETS.includes(path) ? c.get(path, {}, token) : c.post(path, path.startsWith('set') ? validSet : {}, token);

describe('authentication', () => {
  it.each([...GETS, ...POSTS])('%s answers 401 without a token and with a wrong one', async (path) => {
    for (const token of [null, 'wrong-token']) {
      const res = await call(path, token);
      expect(res.status).toBe(401);
      expect(S.apiError.parse(res.body).error.code).toBe('Unauthenticated');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('rejects a malformed Authorization header', async () => {
    const res = await fetch(new URL('/analytics/v0/dau', c.sim.url), {
      headers: { authorization: 'Basic cnctdG9rZW4=' },
    });
    expect(res.status).toBe(401);
  });

  it.each([...GETS, ...POSTS.slice(0, 2)])('%s accepts the read-only token', async (path) => {
    expect((await call(path, 'ro-token')).status).toBe(200);
  });

  it('answers 403 when a token without the write scope sets overrides', async () => {
    const res = await c.post('set-user-budget-overrides', validSet, 'ro-token');
    expect(res.status).toBe(403);
    expect(S.apiError.parse(res.body).error.code).toBe('PermissionDenied');
  });

  it('does not need a token for the changelog', async () => {
    expect((await c.get('/api/changelog', {}, null)).status).toBe(200);
  });
});

describe('unknown parameters and fields are rejected by name', () => {
  it.each(GETS)('%s rejects an unknown query parameter', async (path) => {
    const res = await c.get(path, { colour: 'red', start: '2026-10-01' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('InvalidArgument');
    expect(res.body.error.message).toMatch(/'colour', 'start'/);
  });

  it.each(POSTS)('%s rejects an unknown top-level body field', async (path) => {
    const res = await c.post(path, { ...(path.startsWith('set') ? validSet : {}), verbose: true });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/'verbose'/);
  });

  it.each(POSTS)('%s rejects a query parameter', async (path) => {
    const res = await c.post(`/analytics/v0/${path}?debug=1`, path.startsWith('set') ? validSet : {});
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/'debug'/);
  });

  it('rejects an unknown field inside cost-analytics filters', async () => {
    const res = await c.post('cost-analytics', { filters: { user_emails: [], team_ids: ['t1'] } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/'team_ids' in filters/);
  });

  it('rejects a repeated query parameter', async () => {
    const res = await c.get('/analytics/v0/dau-count?start_date=2026-10-01&start_date=2026-10-02');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/given 2 times/);
  });
});

describe('invalid arguments', () => {
  const cases: Array<[string, () => Promise<any>, RegExp]> = [
    [
      'by_date not a boolean',
      () => c.get('credit-usage-by-user', { by_date: 'yes' }),
      /by_date must be 'true' or 'false'/,
    ],
    ['by_model not a boolean', () => c.get('credit-usage-by-user', { by_model: '1' }), /by_model/],
    [
      'unknown group key',
      () => c.post('cost-analytics', { group_by_keys: ['COST_ANALYTICS_GROUP_BY_TEAM'] }),
      /group_by_keys\[0\] must be one of/,
    ],
    [
      'group keys not an array',
      () => c.post('cost-analytics', { group_by_keys: 'COST_ANALYTICS_GROUP_BY_USER' }),
      /group_by_keys must be an array/,
    ],
    [
      'unknown granularity',
      () => c.post('cost-analytics', { granularity: 'COST_ANALYTICS_TIME_GRANULARITY_WEEK' }),
      /granularity must be one of/,
    ],
    ['filters not an object', () => c.post('cost-analytics', { filters: ['x'] }), /filters must be an object/],
    [
      'filter values not strings',
      () => c.post('cost-analytics', { filters: { product_names: [1] } }),
      /filters.product_names must be an array of strings/,
    ],
    [
      'filter email not an email',
      () => c.post('cost-analytics', { filters: { user_emails: ['bob'] } }),
      /'bob', which is not an email/,
    ],
    ['cursor not a string', () => c.post('cost-analytics', { cursor: 5 }), /cursor must be a string/],
    ['body not JSON', () => c.post('cost-analytics', undefined, undefined, '{"start_date": '), /not valid JSON/],
    ['body not an object', () => c.post('get-user-budget-overrides', [1, 2]), /must be a JSON object/],
    [
      'overrides resource not an enum value',
      () => c.post('get-user-budget-overrides', { resource: 'credits' }),
      /resource must be one of/,
    ],
    [
      'overrides period not an enum value',
      () => c.post('get-user-budget-overrides', { period: 'BUDGET_PERIOD_YEARLY' }),
      /period must be one of/,
    ],
    [
      'overrides emails not an array',
      () => c.post('get-user-budget-overrides', { user_emails: 'a@b.c' }),
      /user_emails must be an array/,
    ],
  ];
  it.each(cases)('%s', async (_name, request, message) => {
    const res = await request();
    expect(res.status).toBe(400);
    expect(S.apiError.parse(res.body).error.code).toBe('InvalidArgument');
    expect(res.body.error.message).toMatch(message);
  });
});

describe('routing', () => {
  it('answers 404 for an unknown path and 405 for the wrong method, in the error body shape', async () => {
    const missing = await c.get('/analytics/v0/nope');
    expect(missing.status).toBe(404);
    S.apiError.parse(missing.body);
    const wrong = await c.post('dau', {});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    S.apiError.parse(wrong.body);
  });
});

describe('changelog errors', () => {
  it.each([['-1'], ['abc'], ['1.5'], ['']])('answers 400 in the changelog shape for page=%j', async (page) => {
    const res = await c.get('/api/changelog', { page }, null);
    expect(res.status).toBe(400);
    expect(S.changelogError.parse(res.body).code).toBe('INVALID_PAGE');
  });

  it('answers 400 for an unknown client, naming the valid ones', async () => {
    const res = await c.get('/api/changelog', { client: 'emacs' }, null);
    expect(res.status).toBe(400);
    const body = S.changelogError.parse(res.body);
    expect(body.code).toBe('INVALID_CLIENT');
    expect(body.resolution).toMatch(/vscode, jetbrains, cli, code-review, agent-platform, models, all/);
  });

  it('can be made to answer 500, and recovers', async () => {
    c.sim.configure({ changelog_unavailable: true });
    const res = await c.get('/api/changelog', {}, null);
    expect(res.status).toBe(500);
    expect(S.changelogError.parse(res.body)).toMatchObject({ success: false, code: 'CHANGELOG_UNAVAILABLE' });
    c.sim.configure({ changelog_unavailable: false });
    expect((await c.get('/api/changelog', {}, null)).status).toBe(200);
  });
});
