import type { Simulator } from '../../../src/simulator/index.js';

/** Every page of a simulator listing, as the upstream answers it: the ground truth a tool's figures are checked against. */
export async function upstream(sim: Simulator, path: string, init: { query?: Record<string, string>; body?: object }) {
  const rows: any[] = [];
  let cursor = '';
  do {
    const url = new URL(`/analytics/v0/${path}`, sim.url);
    for (const [k, v] of Object.entries({ ...init.query, ...(cursor && init.query ? { cursor } : {}) }))
      url.searchParams.set(k, v);
    const res = await fetch(url, {
      method: init.body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${sim.token}`, 'content-type': 'application/json' },
      ...(init.body ? { body: JSON.stringify({ ...init.body, ...(cursor ? { cursor } : {}) }) } : {}),
    });
    const page: any = await res.json();
    rows.push(...(page.records ?? page.data_points));
    cursor = page.pagination.has_more ? page.pagination.next_cursor : '';
  } while (cursor);
  return rows;
}
