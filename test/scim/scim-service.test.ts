import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { DirectorySnapshot } from '../../src/directory/directory-row.js';
import { createScimService, type ScimService } from '../../src/scim/scim-service.js';

const TOKEN = 'scim-secret-1';
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const dir = mkdtempSync(join(tmpdir(), 'scim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: Server | undefined;
let service: ScimService | undefined;
afterEach(async () => {
  service?.close();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = service = undefined;
});

/** The service on a real HTTP server, and what it hands over as the directory. */
async function start(stateFile = join(dir, `state-${Date.now()}-${Math.random()}.json`)) {
  const snapshots: DirectorySnapshot[] = [];
  service = createScimService([{ name: 'scim', token: TOKEN, stateFile, onSnapshot: (s) => snapshots.push(s) }]);
  const s = service;
  server = createServer((req, res) => void s.handle(req, res).then((served) => served || res.writeHead(404).end()));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scim/v2`;
  const call = async (method: string, path: string, body?: unknown, token = TOKEN) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), body: text ? JSON.parse(text) : undefined };
  };
  /** The directory as it stands now, as comparable text: identity team (primary*) cost_center. */
  const directory = () =>
    service!
      .snapshot('scim')!
      .rows.map((r) =>
        [r.identity, r.team.join('/') + (r.primary ? '*' : ''), r.attributes.cost_center].filter(Boolean).join(' '),
      )
      .sort();
  return { call, directory, snapshots, stateFile };
}

const filter = (expr: string) => `?filter=${encodeURIComponent(expr)}&startIndex=1&count=100`;

describe('SCIM provisioning', () => {
  it("follows Okta's sequence: look up, create, read, replace, deactivate, groups and their members", async () => {
    const { call, directory } = await start();
    expect((await call('GET', `/Users${filter('userName eq "ann@corp.example"')}`)).body).toMatchObject({
      totalResults: 0,
    });
    const created = await call('POST', '/Users', {
      schemas: [CORE],
      userName: 'Ann@corp.example',
      name: { givenName: 'Ann', familyName: 'Lee' },
      emails: [{ primary: true, value: 'ann@corp.example', type: 'work' }],
      displayName: 'Ann Lee',
      externalId: '00u1',
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.type).toContain('application/scim+json');
    const ann = created.body.id as string;
    expect((await call('POST', '/Users', { schemas: [CORE], userName: 'ann@corp.example' })).status).toBe(409);
    expect((await call('GET', `/Users${filter('userName eq "ANN@corp.example"')}`)).body.Resources[0].id).toBe(ann);
    expect((await call('GET', `/Users${filter('externalId eq "00u1"')}`)).body.totalResults).toBe(1);
    const bo = (await call('POST', '/Users', { schemas: [CORE], userName: 'bo@corp.example', active: true })).body.id;
    const put = await call('PUT', `/Users/${bo}`, {
      schemas: [CORE, ENTERPRISE],
      userName: 'bo@corp.example',
      active: true,
      [ENTERPRISE]: { costCenter: 'CC-7', department: 'Sales' },
    });
    expect(put.status).toBe(200);
    const group = await call('POST', '/Groups', { schemas: [GROUP], displayName: 'Sales/EMEA', members: [] });
    expect(group.status).toBe(201);
    const g = group.body.id as string;
    expect((await call('GET', `/Groups${filter('displayName eq "Sales/EMEA"')}`)).body.Resources[0].id).toBe(g);
    const add = {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: ann }, { value: bo }] }],
    };
    expect([200, 204]).toContain((await call('PATCH', `/Groups/${g}`, add)).status);
    expect(directory()).toEqual(['u:ann@corp.example Sales/EMEA*', 'u:bo@corp.example Sales/EMEA* CC-7']);
    await call('PATCH', `/Groups/${g}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${ann}"]` }],
    });
    expect(directory()).toEqual(['u:ann@corp.example', 'u:bo@corp.example Sales/EMEA* CC-7']);
    // Deactivated: in no team from then on.
    const off = await call('PATCH', `/Users/${bo}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect(directory()).toEqual(['u:ann@corp.example']);
    expect((await call('DELETE', `/Groups/${g}`)).status).toBe(204);
    expect((await call('GET', `/Groups/${g}`)).status).toBe(404);
  });

  it('follows Entra\'s: capitalised operations, members removed by value list, enterprise attributes, "False"', async () => {
    const { call, directory, snapshots } = await start();
    const user = (name: string, cc: string) =>
      call('POST', '/Users', {
        schemas: [CORE, ENTERPRISE],
        externalId: name,
        userName: `${name}@corp.example`,
        active: true,
        emails: [{ primary: true, type: 'work', value: `${name}@corp.example` }],
        [ENTERPRISE]: { department: 'Engineering/Platform', costCenter: cc },
      }).then((r) => r.body.id as string);
    const [cy, di, ed] = [await user('cy', 'CC-1'), await user('di', 'CC-2'), await user('ed', 'CC-3')];
    const platform = (
      await call('POST', '/Groups', {
        schemas: [GROUP],
        externalId: 'g1',
        displayName: 'Engineering/Platform',
        members: [],
      })
    ).body.id;
    const oncall = (
      await call('POST', '/Groups', { schemas: [GROUP], externalId: 'g2', displayName: 'On-call', members: [] })
    ).body.id;
    const members = (ids: string[]) => ids.map((value) => ({ $ref: null, value }));
    await call('PATCH', `/Groups/${platform}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: members([cy, di, ed]) }],
    });
    await call('PATCH', `/Groups/${oncall}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: members([cy]) }],
    });
    expect(directory()).toEqual([
      'u:cy@corp.example Engineering/Platform* CC-1',
      'u:cy@corp.example On-call CC-1',
      'u:di@corp.example Engineering/Platform* CC-2',
      'u:ed@corp.example Engineering/Platform* CC-3',
    ]);
    // Remove with a value list takes out only those members.
    await call('PATCH', `/Groups/${platform}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Remove', path: 'members', value: members([di]) }],
    });
    await call('PATCH', `/Users/${ed}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'active', value: 'False' },
        { op: 'Replace', path: `${ENTERPRISE}:costCenter`, value: 'CC-9' },
      ],
    });
    await call('PATCH', `/Users/${cy}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: `${ENTERPRISE}:costCenter`, value: 'CC-9' }],
    });
    expect(directory()).toEqual([
      'u:cy@corp.example Engineering/Platform* CC-9',
      'u:cy@corp.example On-call CC-9',
      'u:di@corp.example CC-2',
    ]);
    expect((await call('DELETE', `/Users/${di}`)).status).toBe(204);
    expect(directory()).toHaveLength(2);
    // The directory is handed over, debounced, after the changes.
    await new Promise((r) => setTimeout(r, 1300));
    expect(snapshots.at(-1)!.rows).toHaveLength(2);
    expect(snapshots.at(-1)!.source).toMatchObject({ kind: 'scim', name: 'scim' });
  });

  it('refuses a request without its token, with a SCIM error, and serves discovery', async () => {
    const { call } = await start();
    const refused = await call('GET', '/Users', undefined, 'mcp-caller-key');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });
    expect((await call('GET', '/ServiceProviderConfig')).body.patch.supported).toBe(true);
    expect((await call('GET', '/ResourceTypes')).body.totalResults).toBe(2);
    expect(JSON.stringify((await call('GET', '/Schemas')).body)).toContain(ENTERPRISE);
    expect((await call('GET', '/Nothing')).status).toBe(404);
  });

  it('keeps what was provisioned across a restart', async () => {
    const first = await start();
    const id = (await first.call('POST', '/Users', { schemas: [CORE], userName: 'fay@corp.example', active: true }))
      .body.id;
    const g = (await first.call('POST', '/Groups', { schemas: [GROUP], displayName: 'Ops', members: [{ value: id }] }))
      .body.id;
    service!.close();
    server!.closeAllConnections();
    await new Promise<void>((r) => server!.close(() => r()));
    const again = await start(first.stateFile);
    expect(again.directory()).toEqual(['u:fay@corp.example Ops*']);
    expect(again.snapshots).toHaveLength(1);
    expect((await again.call('GET', `/Groups/${g}`)).body.members).toEqual([expect.objectContaining({ value: id })]);
  });
});
