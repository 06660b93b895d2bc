import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { generateOrganization } from '../../src/simulator/data/organization.js';
import { generateOrgChart } from '../../src/simulator/data/org-chart.js';
import { orgChartCsv } from '../../src/simulator/data/org-chart-csv.js';
import { ScimPushError, scimPush, todaysPeople } from '../../src/simulator/scim-push.js';
import { formatDay, parseIsoDay } from '../../src/util/utc-date.js';

const ANCHOR = parseIsoDay('2026-11-20')!;
const org = (users = 1500, seed = 7) => generateOrganization({ users, seed, anchorDay: ANCHOR });

describe("the simulator's organization chart", () => {
  it('is the same for the same seed, and another for another seed', () => {
    expect(orgChartCsv(generateOrgChart(org()))).toBe(orgChartCsv(generateOrgChart(org())));
    expect(orgChartCsv(generateOrgChart(org(1500, 8)))).not.toBe(orgChartCsv(generateOrgChart(org())));
  });

  it('has a tree of four levels, teams of 2 to 300, people in two teams, in none, and movers', () => {
    const o = org();
    const chart = generateOrgChart(o);
    expect(chart.teams.every((t) => t.split('/').length === 4)).toBe(true);
    const today = formatDay(ANCHOR);
    const sizes = new Map<string, number>();
    for (const r of chart.rows)
      if ((!r.valid_from || r.valid_from <= today) && (!r.valid_to || r.valid_to >= today))
        sizes.set(r.team, (sizes.get(r.team) ?? 0) + 1);
    expect(Math.max(...sizes.values())).toBeLessThanOrEqual(300 + 20);
    const byEmail = new Map<string, typeof chart.rows>();
    for (const r of chart.rows)
      if (r.user_email)
        byEmail.set(r.user_email.toLowerCase(), [...(byEmail.get(r.user_email.toLowerCase()) ?? []), r]);
    const people = o.identities.filter((i) => i.kind === 'user' && i.joinDay <= ANCHOR);
    // Every email in the chart is one the activity data knows, whatever its case.
    for (const email of byEmail.keys()) expect(o.byEmail.has(email)).toBe(true);
    const unassigned = people.length - byEmail.size;
    expect(unassigned).toBeGreaterThan(people.length * 0.01);
    expect(unassigned).toBeLessThan(people.length * 0.04);
    const twoTeams = [...byEmail.values()].filter((rows) => rows.length === 2 && rows.some((r) => r.primary === true));
    expect(twoTeams.length).toBeGreaterThan(3);
    const movers = [...byEmail.values()].filter((rows) => rows.some((r) => r.valid_from));
    expect(movers.length).toBeGreaterThan(people.length * 0.015);
    for (const rows of movers) {
      const [old, now] = [rows.find((r) => r.valid_to)!, rows.find((r) => r.valid_from)!];
      expect(old.team).not.toBe(now.team);
      // The old team ends the day before the new one begins, within the last 60 days.
      expect(parseIsoDay(now.valid_from!)! - parseIsoDay(old.valid_to!)!).toBe(1);
      expect(ANCHOR - parseIsoDay(now.valid_from!)!).toBeLessThanOrEqual(60);
    }
    expect(chart.rows.some((r) => r.service_account_name)).toBe(true);
    expect(chart.rows.some((r) => r.user_email && r.user_email !== r.user_email.toLowerCase())).toBe(true);
  });

  it('scales to 50,000 people in about 2,000 teams of five levels', () => {
    const chart = generateOrgChart(org(50_000), { levels: 5 });
    expect(chart.teams.every((t) => t.split('/').length === 5)).toBe(true);
    expect(chart.teams.length).toBeGreaterThan(1500);
    expect(chart.teams.length).toBeLessThan(2600);
  });

  it('quotes CSV fields with commas or quotes', () => {
    const csv = orgChartCsv({
      teams: [],
      rows: [{ user_email: 'a@x.com', team: 'R&D, "Core"', cost_center: 'CC-1', manager: '', location: 'x' }],
    });
    expect(csv).toBe(
      'user_email,service_account_name,team,cost_center,manager,location,primary,valid_from,valid_to\na@x.com,,"R&D, ""Core""",CC-1,,x,,,\n',
    );
  });
});

describe('the SCIM push', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? (server.closeAllConnections(), server.close(() => r())) : r())));

  /** A SCIM service that records each request and answers as an empty directory would, refusing some first. */
  async function receiver(refuse: (req: IncomingMessage, n: number) => number | undefined) {
    const seen: Array<{ method: string; path: string; body: any }> = [];
    let n = 0;
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        const status = refuse(req, n++);
        if (status) return res.writeHead(status).end();
        const body = text ? JSON.parse(text) : undefined;
        seen.push({ method: req.method!, path: decodeURIComponent(req.url!), body });
        const id = `id-${seen.length}`;
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/scim+json' });
        res.end(JSON.stringify(req.method === 'GET' ? { totalResults: 0, Resources: [] } : { ...body, id }));
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/scim/v2`, seen };
  }

  it("sends Entra's first cycle: users looked up and created, groups created, members added", async () => {
    const chart = generateOrgChart(org(60));
    const { url, seen } = await receiver((req, n) => (n === 3 ? 429 : undefined));
    const pushed = await scimPush(chart, { url, token: 't', today: formatDay(ANCHOR), backoffMs: () => 1 });
    const people = todaysPeople(chart, formatDay(ANCHOR));
    expect(pushed.users).toBe(people.size);
    const posts = seen.filter((s) => s.method === 'POST' && s.path === '/scim/v2/Users');
    expect(posts).toHaveLength(people.size);
    expect(posts[0]!.body['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'].costCenter).toMatch(/^CC-/);
    expect(seen.filter((s) => s.path.startsWith('/scim/v2/Users?filter=userName eq "'))).toHaveLength(people.size);
    const patches = seen.filter((s) => s.method === 'PATCH');
    const added = patches.flatMap((p) => p.body.Operations[0].value).length;
    expect(added).toBe([...people.values()].reduce((a, p) => a + p.teams.length, 0));
    expect(patches[0]!.body.Operations[0]).toMatchObject({ op: 'Add', path: 'members' });
    // Users all come before the first group.
    const firstGroup = seen.findIndex((s) => s.path.startsWith('/scim/v2/Groups'));
    expect(seen.slice(firstGroup).some((s) => s.path.startsWith('/scim/v2/Users'))).toBe(false);
  });

  it('stops at once with a clear error on 401', async () => {
    const { url, seen } = await receiver(() => 401);
    await expect(scimPush(generateOrgChart(org(30)), { url, token: 'bad', today: formatDay(ANCHOR) })).rejects.toThrow(
      ScimPushError,
    );
    expect(seen).toHaveLength(0);
  });
});
