import { localKey } from './local-key.js';
import { LoginCredential } from './login-credential.js';
import { LoginStore, type StoreMode } from './login-store.js';
import { ConversationSignIn } from './sign-in.js';
import type { LoginAccount } from '../config/stored-login.js';
import { TokenClient } from './token-client.js';

/** What a server that uses a login needs: the credential, and a key that stays when tokens change. */
export async function loginRuntime(
  account: LoginAccount,
  mode: StoreMode,
  secrets: Array<string | undefined>,
  env: NodeJS.ProcessEnv,
): Promise<{ credential: LoginCredential; signIn: ConversationSignIn; key: string; close(): Promise<void> }> {
  const tokens = new TokenClient(account, Date.now, env);
  const store = new LoginStore(account, mode, env);
  const credential = new LoginCredential(store, tokens, secrets);
  // Found now, so that the tool list shows what this login may do from the first tools/list.
  // A keychain that cannot be read now is said at the first call, not by refusing to start.
  await credential.reload().catch(() => undefined);
  const signIn = new ConversationSignIn(store, tokens, credential);
  return {
    credential,
    signIn,
    key: await localKey(env),
    close: async () => {
      signIn.close();
      await tokens.close();
    },
  };
}
