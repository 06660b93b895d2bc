import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configDir } from './config-dir.js';
import { storedLoginSchema, type LoginAccount, type StoredLogin } from '../config/stored-login.js';

export type StoreMode = 'auto' | 'keyring' | 'file';
export type LoginLocation = { kind: 'keychain'; service: string } | { kind: 'file'; path: string };

const SERVICE = 'org-analytics-mcp';

type KeyringEntry = import('@napi-rs/keyring').AsyncEntry;

/** The keychain was asked for (--credential-store keyring) and could not be used. */
export class KeychainError extends Error {
  override name = 'KeychainError';
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The config directory, 0700 even when it existed before (mkdir's mode applies only to what it creates). */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

export const describeLocation = (where: LoginLocation) =>
  where.kind === 'keychain' ? `the OS keychain (service ${where.service})` : `${where.path} (readable by you only)`;

/**
 * Keeps one login per sign-in service and client: in the OS keychain, or, where there is none (headless
 * Linux without a Secret Service), in a 0600 JSON file in the user's config directory.
 */
export class LoginStore {
  readonly dir: string;
  readonly file: string;
  /** Why the keychain could not be used, once a write fell back to the file. */
  keychainProblem: string | undefined;
  private entry: Promise<KeyringEntry | undefined> | undefined;

  constructor(
    readonly account: LoginAccount,
    private readonly mode: StoreMode = 'auto',
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.dir = configDir(env);
    const id = createHash('sha256').update(`${account.authUrl}\n${account.clientId}`).digest('hex').slice(0, 16);
    this.file = join(this.dir, `login-${id}.json`);
  }

  /** The path proper-lockfile locks, so that one process at a time refreshes this login. */
  get lockPath(): string {
    return this.file.replace(/\.json$/, '');
  }

  /**
   * The newest login kept, from the keychain or the file (a write that fell back to the file may have left
   * an older copy in the keychain). Throws KeychainError when the keychain is asked for and cannot be read.
   */
  async read(): Promise<{ login: StoredLogin; where: LoginLocation } | undefined> {
    const found: Array<{ login: StoredLogin; where: LoginLocation }> = [];
    const entry = await this.keychain();
    if (entry) {
      let text: string | null = null;
      try {
        text = await entry.getPassword();
      } catch (error) {
        // Not "nobody signed in": the login may well be there. Without the file to fall back on, say so.
        if (this.mode === 'keyring') throw new KeychainError(`The OS keychain could not be read: ${messageOf(error)}`);
      }
      const login = text === null ? undefined : parseLogin(text);
      if (login) found.push({ login, where: { kind: 'keychain', service: SERVICE } });
    }
    if (this.mode !== 'keyring') {
      const text = await readFile(this.file, 'utf8').catch(() => undefined);
      const login = text === undefined ? undefined : parseLogin(text);
      if (login) found.push({ login, where: { kind: 'file', path: this.file } });
    }
    return found.sort((a, b) => Date.parse(b.login.obtained_at) - Date.parse(a.login.obtained_at))[0];
  }

  async write(login: StoredLogin): Promise<LoginLocation> {
    const entry = await this.keychain();
    if (entry) {
      try {
        await entry.setPassword(JSON.stringify(login));
        await rm(this.file, { force: true });
        return { kind: 'keychain', service: SERVICE };
      } catch (error) {
        this.keychainProblem = messageOf(error);
        if (this.mode === 'keyring')
          throw new KeychainError(`The OS keychain refused the login: ${this.keychainProblem}`);
        // An older copy left there would otherwise be read back, its used refresh token sent again.
        await entry.deletePassword().catch(() => false);
      }
    }
    await privateDir(this.dir);
    // Written whole, then renamed: a reader never sees half a login, and the mode is set before any secret lands.
    const temp = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, this.file);
    return { kind: 'file', path: this.file };
  }

  /** Forgets the login wherever it is; says where it was. */
  async remove(): Promise<LoginLocation[]> {
    const removed: LoginLocation[] = [];
    const entry = await this.keychain();
    if (entry && (await entry.deletePassword().catch(() => false)))
      removed.push({ kind: 'keychain', service: SERVICE });
    const present = await readFile(this.file).then(
      () => true,
      () => false,
    );
    if (present) {
      await rm(this.file, { force: true });
      removed.push({ kind: 'file', path: this.file });
    }
    return removed;
  }

  /** The keychain entry, or undefined when the file is asked for or the native module cannot load here. */
  private keychain(): Promise<KeyringEntry | undefined> {
    if (this.mode === 'file') return Promise.resolve(undefined);
    return (this.entry ??= this.openKeychain());
  }

  private async openKeychain(): Promise<KeyringEntry | undefined> {
    try {
      const { AsyncEntry } = await import('@napi-rs/keyring');
      // On Linux only the Secret Service persists: the kernel keyring, the library's fallback, forgets at logout.
      return new AsyncEntry(SERVICE, `${this.account.authUrl} ${this.account.clientId}`, {
        linux: { store: 'secret-service' },
      });
    } catch (error) {
      this.keychainProblem = messageOf(error);
      if (this.mode === 'keyring') throw new KeychainError(`The OS keychain is not available: ${this.keychainProblem}`);
      return undefined;
    }
  }
}

function parseLogin(text: string): StoredLogin | undefined {
  try {
    const parsed = storedLoginSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
