import type { z } from 'zod';
import type { schemaOf } from '../config/cli-options.js';
import type { LOGIN_OPTIONS } from './login-options.js';
import { signedInLine, signIn, type Out } from './browser-sign-in.js';

type Options = z.output<ReturnType<typeof schemaOf<typeof LOGIN_OPTIONS>>>;

/**
 * `login --demo`: the whole flow against a fresh embedded simulator, ending in one analytics call with the
 * new token. Nothing is stored: the simulator, and with it every token it issued, stops with the command.
 */
export async function demoLogin(options: Options, out: Out): Promise<number> {
  const { startDemoSimulator } = await import('../simulator/index.js');
  const sim = await startDemoSimulator();
  try {
    out.warn(`Demo sign-in service: ${sim.authUrl} (client ${sim.oauthClientId}).`);
    const login = await signIn(
      { authUrl: sim.authUrl, clientId: sim.oauthClientId },
      options.scopes,
      !options.noBrowser,
      out,
    );
    out.print(signedInLine(login));
    const res = await fetch(`${sim.url}/analytics/v0/dau-count`, {
      headers: { authorization: `Bearer ${login.access_token}` },
    });
    out.print(
      res.ok
        ? 'The new token works: the simulator answered the daily-active-users count. Nothing was stored (demo).'
        : `The simulator refused the new token (${res.status}).`,
    );
    return res.ok ? 0 : 1;
  } finally {
    await sim.close();
  }
}
