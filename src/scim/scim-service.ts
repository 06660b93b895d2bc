import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DirectorySnapshot } from '../directory/directory-row.js';
import { scimSnapshot } from './scim-directory.js';
import { sendError, serveScim } from './scim-http.js';
import { BASE_PATH, declareScim } from './scim-resources.js';
import { ScimState } from './scim-state.js';

/** One directory SCIM provisions: a tenant's, or the server's own. */
export interface ScimTenant {
  /** `scim`, or `scim:<tenant>`: where the directory came from, in answers. */
  name: string;
  /** The bearer token the identity provider sends (from the variable --scim-token-env names). */
  token: string;
  /** Where the provisioned users and groups are kept across restarts. */
  stateFile?: string;
  /** Each new version of the directory, at most once a second while provisioning goes on. */
  onSnapshot: (snapshot: DirectorySnapshot) => void;
}

export interface ScimService {
  /** Serves a request under /scim/v2; false when the path is not SCIM's. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The current directory of a tenant, now. */
  snapshot(name: string): DirectorySnapshot | undefined;
  close(): void;
}

const SNAPSHOT_AFTER_MS = 1000;
const digest = (token: string) => createHash('sha256').update(token).digest();

/**
 * SCIM 2.0 provisioning at <server>/scim/v2 (RFC 7644), for Okta and Entra ID. Its own bearer token, never an MCP
 * caller's key; with tenants, the token tells whose directory a request provisions.
 */
export function createScimService(tenants: readonly ScimTenant[]): ScimService {
  declareScim();
  const served = tenants.map((t) => {
    const state = new ScimState(t.stateFile);
    let timer: NodeJS.Timeout | undefined;
    state.onChange = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        t.onSnapshot(scimSnapshot(state, t.name));
      }, SNAPSHOT_AFTER_MS);
    };
    // What was provisioned before a restart is the directory from the start.
    if (state.users.size || state.groups.size) t.onSnapshot(scimSnapshot(state, t.name));
    return { tenant: t, state, key: digest(t.token), stop: () => clearTimeout(timer) };
  });
  const whose = (req: IncomingMessage) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m) return undefined;
    const key = digest(m[1]!);
    return served.find((s) => timingSafeEqual(s.key, key));
  };
  return {
    async handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://scim.local');
      if (url.pathname !== BASE_PATH && !url.pathname.startsWith(`${BASE_PATH}/`)) return false;
      const s = whose(req);
      if (!s) {
        sendError(res, 401, 'SCIM needs the bearer token set in the variable that --scim-token-env names');
        return true;
      }
      await serveScim(req, res, url, url.pathname.slice(BASE_PATH.length), s.state);
      return true;
    },
    snapshot: (name) => {
      const s = served.find((x) => x.tenant.name === name);
      return s && scimSnapshot(s.state, name);
    },
    close() {
      for (const s of served) {
        s.stop();
        s.state.save();
      }
    },
  };
}
