import type { LoginCredential } from './login-credential.js';
import { startLoginFlow, type LoginFlow } from './login-flow.js';
import type { LoginStore } from './login-store.js';
import type { TokenClient } from './token-client.js';
import { withRefreshLock } from './refresh-lock.js';

/** How long a sign-in link offered in a conversation stays good: long enough to find the browser tab. */
const SIGN_IN_WINDOW_MS = 10 * 60_000;

/**
 * Sign-in from inside a conversation (URL elicitation): one flow at a time, whose link every waiting call
 * shares; when the browser comes back, the login is stored and the credential uses it at once.
 */
export class ConversationSignIn {
  private flow: LoginFlow | undefined;
  private starting: Promise<LoginFlow> | undefined;
  /** The flow under way, through to the login stored and in use. */
  private signingIn: Promise<unknown> | undefined;

  constructor(
    private readonly store: LoginStore,
    private readonly tokens: TokenClient,
    private readonly credential: LoginCredential,
  ) {}

  /** The link to open, starting a sign-in when none is under way. Asks for read: the least privilege. */
  async url(): Promise<string> {
    // Kept before the first await: calls arriving together share one flow and one link.
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return (await this.starting).url;
  }

  private async start(): Promise<LoginFlow> {
    if (this.flow) return this.flow;
    const flow = await startLoginFlow({
      tokens: this.tokens,
      scopes: ['read'],
      timeoutMs: SIGN_IN_WINDOW_MS,
      previous: this.credential.login,
    });
    this.flow = flow;
    this.signingIn = flow.result
      .then((login) => withRefreshLock(this.store.lockPath, () => this.store.write(login)))
      .then(() => this.credential.reload())
      .catch(() => {})
      .finally(() => {
        if (this.flow === flow) this.flow = undefined;
      });
    return flow;
  }

  /** True once a login is in use, waiting up to `ms` for a sign-in under way to finish. */
  async signedIn(ms: number): Promise<boolean> {
    if (this.credential.login) return true;
    if (this.signingIn) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.signingIn, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    }
    return (await this.credential.reload()) !== undefined;
  }

  close(): void {
    this.flow?.cancel();
  }
}
