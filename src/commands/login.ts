import { describeLocation } from '../login/login-store.js';
import { signedInLine, signIn, type Out } from '../login/browser-sign-in.js';
import { withRefreshLock } from '../login/refresh-lock.js';
import { loginStoreOf, readLoginOptions } from './login-account.js';

/** `org-analytics-mcp login`: signs in with the browser (or `--demo`) and keeps the login; the exit code. */
export async function runLoginCommand(argv: string[], out: Out): Promise<number> {
  const options = readLoginOptions('login', argv, out.env);
  if (!options) return 0;
  if (options.demo) return (await import('../login/demo-login.js')).demoLogin(options, out);
  const store = loginStoreOf(options, out.env);
  const login = await signIn(store.account, options.scopes, !options.noBrowser, out, (await store.read())?.login);
  const where = await withRefreshLock(store.lockPath, () => store.write(login));
  if (where.kind === 'file' && store.keychainProblem)
    out.warn(`No OS keychain here (${store.keychainProblem}); using the file instead.`);
  out.print(`${signedInLine(login)} The login is kept in ${describeLocation(where)}.`);
  return 0;
}
