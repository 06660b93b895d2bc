import SCIMMY from 'scimmy';
import type { ScimRecord, ScimState } from './scim-state.js';

/**
 * SCIM's protocol is SCIMMY's (RFC 7643/7644: the User and Group schemas with the enterprise extension, filters,
 * PatchOp as Okta and Entra send it, ListResponse and Error messages, and the discovery endpoints); what is ours is
 * where the resources live. SCIMMY's declarations are process-wide, so the state a call works on comes as its
 * context: one ScimState per tenant.
 */

export const BASE_PATH = '/scim/v2';
let declared = false;

type Filter = Array<Record<string, unknown>> & { match(values: unknown[]): unknown[] };
interface Asked {
  id?: string;
  filter?: Filter;
}

/** `attr eq "value"` on an indexed attribute: the one record, without a scan. */
function indexed(filter: Filter | undefined, state: ScimState, kind: 'users' | 'groups'): ScimRecord[] | undefined {
  if (filter?.length !== 1) return undefined;
  const entries = Object.entries(filter[0]!);
  if (entries.length !== 1) return undefined;
  const [attribute, test] = entries[0]! as [string, unknown];
  if (!Array.isArray(test) || String(test[0]).toLowerCase() !== 'eq' || typeof test[1] !== 'string') return undefined;
  const value = test[1];
  const found =
    kind === 'users'
      ? attribute.toLowerCase() === 'username'
        ? state.userByName(value)
        : attribute.toLowerCase() === 'externalid'
          ? state.userByExternalId(value)
          : attribute === 'id'
            ? state.users.get(value)
            : null
      : attribute.toLowerCase() === 'displayname'
        ? state.groupByName(value)
        : attribute === 'id'
          ? state.groups.get(value)
          : null;
  return found === null ? undefined : found ? [found] : [];
}

function read(kind: 'users' | 'groups') {
  return (resource: Asked, state: ScimState) => {
    const records = state[kind];
    if (resource.id !== undefined) {
      const one = records.get(resource.id);
      if (!one) throw new SCIMMY.Types.Error(404, null!, `Resource ${resource.id} not found`);
      return one;
    }
    return (
      indexed(resource.filter, state, kind) ??
      ((resource.filter?.match([...records.values()]) ?? [...records.values()]) as ScimRecord[])
    );
  };
}

const conflict = (what: string) =>
  new SCIMMY.Types.Error(409, 'uniqueness', `${what} is taken: use PUT or PATCH on the existing resource`);

/** Declares the resources once per process, with handlers that act on the state each call names. */
export function declareScim(): void {
  if (declared) return;
  declared = true;
  SCIMMY.Config.set({
    patch: true,
    filter: { supported: true, maxResults: 1000 },
    bulk: false,
    changePassword: false,
    sort: false,
    etag: false,
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: 'The token in the variable --scim-token-env names',
      },
    ],
  });
  SCIMMY.Resources.User.basepath(BASE_PATH);
  SCIMMY.Resources.Group.basepath(BASE_PATH);
  SCIMMY.Resources.declare(SCIMMY.Resources.User)
    .extend(SCIMMY.Schemas.EnterpriseUser, false)
    .egress(read('users') as never)
    .ingress(((resource: Asked, instance: Record<string, unknown>, state: ScimState) => {
      const existing = resource.id === undefined ? undefined : state.users.get(resource.id);
      if (resource.id !== undefined && !existing)
        throw new SCIMMY.Types.Error(404, null!, `Resource ${resource.id} not found`);
      const same = state.userByName(String(instance.userName));
      if (same && same.id !== existing?.id) throw conflict(`userName ${String(instance.userName)}`);
      return state.putUser(state.stamp({ ...instance }, existing));
    }) as never)
    .degress(((resource: Asked, state: ScimState) => {
      if (!state.deleteUser(resource.id!))
        throw new SCIMMY.Types.Error(404, null!, `Resource ${resource.id} not found`);
    }) as never);
  SCIMMY.Resources.declare(SCIMMY.Resources.Group)
    .egress(read('groups') as never)
    .ingress(((resource: Asked, instance: Record<string, unknown>, state: ScimState) => {
      const existing = resource.id === undefined ? undefined : state.groups.get(resource.id);
      if (resource.id !== undefined && !existing)
        throw new SCIMMY.Types.Error(404, null!, `Resource ${resource.id} not found`);
      const same = state.groupByName(String(instance.displayName));
      if (same && same.id !== existing?.id) throw conflict(`displayName ${String(instance.displayName)}`);
      // Members are kept by id only: who they are is read from the users when the directory is built.
      const members = ((instance.members as Array<{ value: string }> | undefined) ?? []).map((m) => ({
        value: m.value,
      }));
      return state.putGroup(state.stamp({ ...instance, members }, existing));
    }) as never)
    .degress(((resource: Asked, state: ScimState) => {
      if (!state.deleteGroup(resource.id!))
        throw new SCIMMY.Types.Error(404, null!, `Resource ${resource.id} not found`);
    }) as never);
}
