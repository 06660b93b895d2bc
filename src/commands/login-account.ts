import type { z } from 'zod';
import { optionsHelp } from '../config/cli-help.js';
import { readOptions, schemaOf, validateOptions, type ReadOptions } from '../config/cli-options.js';
import { duration } from '../format/text.js';
import { LoginStore } from '../login/login-store.js';
import { LOGIN_OPTIONS } from '../login/login-options.js';
import { WAIT_MS } from '../login/browser-sign-in.js';
import { openCommand, programCommand, usageError, type OneShot } from './command-opening.js';

/** The three commands' usage errors point to login's --help, which describes them all. */
export const LOGIN_COMMAND = programCommand('login');

export const LOGIN_HELP = `Usage: org-analytics-mcp login [--scopes read,write] [--no-browser] [--demo]
       org-analytics-mcp logout
       org-analytics-mcp auth status

Signs you in to the analytics API with OAuth (authorization code with PKCE), as an alternative to a
service-account token. The tokens are kept in the OS keychain, or in a 0600 file in
$XDG_CONFIG_HOME/org-analytics-mcp where there is no keychain; a server started without
ANALYTICS_API_TOKEN but with ANALYTICS_AUTH_URL and ANALYTICS_CLIENT_ID uses them, and refreshes them.

It waits up to ${duration(WAIT_MS)} for the browser to come back to a port on 127.0.0.1. Without a browser on this
machine, open the printed address on another one; login prints how to bring the answer back (an SSH port
forward, or curl of the address that browser could not load).

${optionsHelp(LOGIN_OPTIONS)}
`;

export type LoginOptions = z.output<ReturnType<typeof schemaOf<typeof LOGIN_OPTIONS>>>;

const loginCommand = (name: string): OneShot<ReadOptions> => ({
  name,
  help: LOGIN_HELP,
  args: (argv, env) => ({ args: readOptions(LOGIN_OPTIONS, argv, env, LOGIN_COMMAND), rest: [] }),
  helpRead: (read) => read.help,
});

/** The opening of `login`, `logout` and `auth status`: their options, or undefined when --help was printed. */
export function readLoginOptions(name: string, argv: string[], env: NodeJS.ProcessEnv): LoginOptions | undefined {
  const read = openCommand(loginCommand(name), argv, env)?.args;
  return read && validateOptions(schemaOf(LOGIN_OPTIONS), read, LOGIN_COMMAND);
}

/** Where the login of the account the options name is kept; a usage error without the account. */
export function loginStoreOf(options: LoginOptions, env: NodeJS.ProcessEnv): LoginStore {
  if (!options.authUrl || !options.clientId)
    throw usageError(
      'login',
      `Set ANALYTICS_AUTH_URL and ANALYTICS_CLIENT_ID (or --auth-url and --client-id): the sign-in service and the client registered for org-analytics-mcp.\n` +
        `  To try the flow without them: ${LOGIN_COMMAND} --demo.`,
    );
  return new LoginStore({ authUrl: options.authUrl, clientId: options.clientId }, options.credentialStore, env);
}
