import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';

/** The frozen instant the contract tests run at: today is 2026-11-21, yesterday 2026-11-20 (UTC). */
export const NOW = '2026-11-21T10:00:00.000Z';
export const TODAY = '2026-11-21';
export const YESTERDAY = '2026-11-20';
export const API = '/analytics/v0';

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface SimClient {
  sim: Simulator;
  get<T = any>(
    path: string,
    query?: Record<string, string | number | boolean>,
    token?: string | null,
  ): Promise<Answer<T>>;
  post<T = any>(path: string, body?: unknown, token?: string | null, rawBody?: string): Promise<Answer<T>>;
  close(): Promise<void>;
}

export async function simClient(options: SimulatorOptions = {}): Promise<SimClient> {
  const sim = await startSimulator({
    users: 300,
    now: NOW,
    rateLimit: false,
    token: 'rw-token',
    readToken: 'ro-token',
    ...options,
  });
  const headers = (token: string | null | undefined): Record<string, string> => {
    const t = token === undefined ? sim.token : token;
    return t === null ? {} : { authorization: `Bearer ${t}` };
  };
  const read = async (res: Response): Promise<Answer> => {
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, body, text };
  };
  return {
    sim,
    async get(path, query = {}, token) {
      const url = new URL(path.startsWith('/') ? path : `${API}/${path}`, sim.url);
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
      return read(await fetch(url, { headers: headers(token) }));
    },
    async post(path, body, token, rawBody) {
      const url = new URL(path.startsWith('/') ? path : `${API}/${path}`, sim.url);
      const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
      return read(
        await fetch(url, {
          method: 'POST',
          headers: { ...headers(token), 'content-type': 'application/json' },
          body: payload,
        }),
      );
    },
    close: () => sim.close(),
  };
}

/** Follows next_cursor until has_more is false, returning every page. */
export async function allPages<T = any>(
  client: SimClient,
  path: string,
  query: Record<string, string | number | boolean> = {},
): Promise<Answer<T>[]> {
  const pages: Answer<T>[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const page = await client.get<T>(path, cursor ? { ...query, cursor } : query);
    if (page.status !== 200) throw new Error(`${path} answered ${page.status}: ${page.text}`);
    pages.push(page);
    const p = (page.body as { pagination: { has_more: boolean; next_cursor?: string } }).pagination;
    if (!p.has_more) return pages;
    cursor = p.next_cursor;
  }
  throw new Error('pagination did not end');
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
