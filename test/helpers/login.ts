import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../src/config/config.js';
import { LoginCredential } from '../../src/login/login-credential.js';
import { startLoginFlow } from '../../src/login/login-flow.js';
import { LoginStore } from '../../src/login/login-store.js';
import type { LoginAccount, StoredLogin } from '../../src/config/stored-login.js';
import { TokenClient } from '../../src/login/token-client.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import type { Simulator } from '../../src/simulator/index.js';

/** A config directory of its own (XDG_CONFIG_HOME), so that no test touches the user's logins or keychain. */
export function configHome(): { env: NodeJS.ProcessEnv; dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'oam-login-'));
  return { env: { XDG_CONFIG_HOME: dir }, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const accountOf = (sim: Simulator): LoginAccount => ({ authUrl: sim.authUrl, clientId: sim.oauthClientId });

/**
 * Signs in as a browser would on a simulator that auto-approves: follows the authorize redirect to our
 * loopback listener, and answers the login it ends in (stored when a store is given).
 */
export async function browserlessLogin(sim: Simulator, scopes: string[], store?: LoginStore): Promise<StoredLogin> {
  const tokens = new TokenClient(accountOf(sim));
  try {
    const flow = await startLoginFlow({ tokens, scopes, timeoutMs: 10_000 });
    await fetch(flow.url);
    const login = await flow.result;
    if (store) await store.write(login);
    return login;
  } finally {
    await tokens.close();
  }
}

/** A credential as a server process would hold one: its own token client, the given store. */
export function credentialOn(store: LoginStore, secrets: Array<string | undefined> = []) {
  const tokens = new TokenClient(store.account);
  const credential = new LoginCredential(store, tokens, secrets);
  return { credential, close: () => tokens.close() };
}

/** Token grants the simulator's token endpoint saw (the log keeps only the grant type). */
export const grants = (sim: Simulator, type: string) =>
  sim.requests().filter((r) => r.path.endsWith('/token') && (r.body as { grant_type?: string })?.grant_type === type);

/** A server's runtime on a login (no token) to the simulator, with its logins kept under `env`'s config directory. */
export function runtimeOnLogin(sim: Simulator, env: NodeJS.ProcessEnv): Promise<Runtime> {
  const config = configSchema.parse({
    baseUrl: sim.url,
    authUrl: sim.authUrl,
    clientId: sim.oauthClientId,
    credentialStore: 'file',
    logLevel: 'error',
    toolsets: 'all',
  });
  return createRuntime(config, { env });
}
