import type { DirectoryRow, DirectorySnapshot } from '../directory/directory-row.js';
import type { ScimMember, ScimRecord, ScimState } from './scim-state.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** Entra's older requests write booleans as "True"/"False". */
const isInactive = (active: unknown) => active === false || String(active).toLowerCase() === 'false';

function attributesOf(user: ScimRecord, state: ScimState): Record<string, string> {
  const ext = (user[ENTERPRISE] ?? {}) as {
    costCenter?: string;
    department?: string;
    manager?: { value?: string; displayName?: string };
  };
  const manager = ext.manager?.value
    ? (state.users.get(ext.manager.value)?.userName ?? ext.manager.displayName ?? ext.manager.value)
    : undefined;
  const address =
    (user.addresses as Array<{ locality?: string; primary?: boolean }> | undefined)?.find((a) => a.primary) ??
    (user.addresses as Array<{ locality?: string }> | undefined)?.[0];
  const out: Record<string, string> = {};
  if (ext.costCenter) out.cost_center = ext.costCenter;
  if (ext.department) out.department = ext.department;
  if (manager) out.manager = String(manager);
  if (address?.locality) out.location = address.locality;
  return out;
}

/**
 * The directory SCIM has provisioned: each active user in each group that lists it (a group's displayName is the
 * team's path, `/` between levels), a user in no group with its attributes only. Deactivated users are in no team
 * from then on. The primary team is the group named like the user's department, else the first by name.
 */
export function scimSnapshot(state: ScimState, name: string): DirectorySnapshot {
  const teamsOf = new Map<string, string[]>();
  for (const g of [...state.groups.values()].sort((a, b) => String(a.displayName).localeCompare(String(b.displayName))))
    for (const m of (g.members as ScimMember[] | undefined) ?? [])
      teamsOf.set(m.value, [...(teamsOf.get(m.value) ?? []), String(g.displayName)]);
  const rows: DirectoryRow[] = [];
  for (const user of state.users.values()) {
    if (isInactive(user.active)) continue;
    const identity = `u:${String(user.userName).toLowerCase()}`;
    const attributes = attributesOf(user, state);
    const teams = teamsOf.get(user.id) ?? [];
    const primary = teams.find((t) => t === attributes.department) ?? teams[0];
    if (!teams.length) rows.push({ identity, team: [], attributes });
    for (const t of teams)
      rows.push({ identity, team: t.split('/').filter(Boolean), primary: t === primary, attributes });
  }
  return { rows, source: { kind: 'scim', name, loadedAt: new Date().toISOString() } };
}
