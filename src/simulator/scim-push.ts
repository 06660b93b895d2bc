import type { OrgChart } from './data/org-chart.js';

/**
 * Pushes the chart to a SCIM 2.0 service (RFC 7644) as Microsoft Entra ID's first provisioning cycle does: each
 * user is looked up by userName and created, then each team is looked up by displayName, created, and given its
 * members by PATCH `Add` in batches. Four requests at a time, 429 and 5xx retried with backoff. SCIM has no
 * service accounts, and one push states one day: today's membership is pushed (dated moves are not).
 */

const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const BATCH = 100;

export interface PushOptions {
  url: string;
  token: string;
  concurrency?: number;
  /** Today, as `YYYY-MM-DD`: rows whose dates exclude it are not pushed. */
  today: string;
  progress?: (line: string) => void;
  /** Milliseconds to wait before retry n (1-based); tests shorten it. */
  backoffMs?: (attempt: number, retryAfterS?: number) => number;
}

export class ScimPushError extends Error {}

interface Person {
  email: string;
  costCenter: string;
  manager: string;
  teams: string[];
}

/** Today's people and their teams from the chart (rows valid today; emails lowercased for matching). */
export function todaysPeople(chart: OrgChart, today: string): Map<string, Person> {
  const people = new Map<string, Person>();
  for (const r of chart.rows) {
    if (r.user_email === undefined) continue;
    if ((r.valid_from && r.valid_from > today) || (r.valid_to && r.valid_to < today)) continue;
    const email = r.user_email.toLowerCase();
    const p = people.get(email) ?? { email, costCenter: r.cost_center, manager: r.manager.toLowerCase(), teams: [] };
    if (r.primary === true) p.teams.unshift(r.team);
    else p.teams.push(r.team);
    people.set(email, p);
  }
  return people;
}

async function pool<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

export async function scimPush(chart: OrgChart, options: PushOptions): Promise<{ users: number; groups: number }> {
  const base = options.url.replace(/\/+$/, '');
  const backoff = options.backoffMs ?? ((n, after) => (after ?? 0) * 1000 || Math.min(30_000, 500 * 2 ** n));
  const send = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/scim+json',
          ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.ok) return text ? (JSON.parse(text) as Record<string, unknown>) : {};
      if (res.status === 401 || res.status === 403)
        throw new ScimPushError(`SCIM ${method} ${path}: ${res.status}; check the token (SCIM_TOKEN)`);
      if ((res.status === 429 || res.status >= 500) && attempt < 8) {
        const after = Number(res.headers.get('retry-after')) || undefined;
        await new Promise((r) => setTimeout(r, backoff(attempt, after)));
        continue;
      }
      throw new ScimPushError(`SCIM ${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    }
  };
  const found = async (path: string, filter: string) => {
    const list = await send('GET', `${path}?filter=${encodeURIComponent(filter)}`);
    return (list.Resources as Array<{ id: string }> | undefined)?.[0]?.id;
  };
  const quoted = (s: string) => `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

  const people = [...todaysPeople(chart, options.today).values()];
  const ids = new Map<string, string>();
  let done = 0;
  await pool(people, options.concurrency ?? 4, async (p) => {
    const id =
      (await found('/Users', `userName eq ${quoted(p.email)}`)) ??
      String(
        (
          await send('POST', '/Users', {
            schemas: [CORE_USER, ENTERPRISE],
            userName: p.email,
            active: true,
            emails: [{ value: p.email, type: 'work', primary: true }],
            [ENTERPRISE]: { costCenter: p.costCenter, department: p.teams[0], manager: { value: p.manager } },
          })
        ).id,
      );
    ids.set(p.email, id);
    if (++done % 500 === 0) options.progress?.(`users ${done}/${people.length}`);
  });
  const members = new Map<string, string[]>();
  for (const p of people) for (const t of p.teams) members.set(t, [...(members.get(t) ?? []), ids.get(p.email)!]);
  const teams = [...members.keys()];
  done = 0;
  await pool(teams, options.concurrency ?? 4, async (team) => {
    const id =
      (await found('/Groups', `displayName eq ${quoted(team)}`)) ??
      String((await send('POST', '/Groups', { schemas: [GROUP], displayName: team, members: [] })).id);
    const all = members.get(team)!;
    for (let i = 0; i < all.length; i += BATCH)
      await send('PATCH', `/Groups/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Add', path: 'members', value: all.slice(i, i + BATCH).map((value) => ({ value })) }],
      });
    if (++done % 100 === 0) options.progress?.(`groups ${done}/${teams.length}`);
  });
  options.progress?.(`pushed ${people.length} users and ${teams.length} groups`);
  return { users: people.length, groups: teams.length };
}
