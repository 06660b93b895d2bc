import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

/** What a key lets its holder do: read, or read and change budgets. */
export type Role = 'read' | 'write';

const entrySchema = z.strictObject({
  id: z.string().regex(/^k_[0-9a-f]{8}$/),
  /** sha256 of the key, hex: the key itself is never stored. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  role: z.enum(['read', 'write']),
  tenant: z.string().min(1).nullable(),
  created_at: z.string(),
});
export type ApiKeyEntry = z.output<typeof entrySchema>;
const fileSchema = z.strictObject({ keys: z.array(entrySchema) });

/** Every key starts with this, so that a bearer token is told apart from a JWT without trying both. */
export const KEY_PREFIX = 'oam_';
/** How often a running server looks at the file for changes: a revoked key stops working within 10 s. */
const RECHECK_MS = 2_000;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export class ApiKeysFileError extends Error {}

/** Reads the keys file; a missing file holds no keys. */
export function readKeysFile(path: string): ApiKeyEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ApiKeysFileError(`cannot read the API keys file ${path}: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(safeJson(text));
  if (!parsed.success)
    throw new ApiKeysFileError(
      `the API keys file ${path} is not a keys file made by \`org-analytics-mcp api-key create\`: ${parsed.error.issues[0]?.message}`,
    );
  return parsed.data.keys;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Writes the file whole, 0600, through a temporary file and a rename: a reader never sees half of it. A
 * missing folder is made, 0700: only its owner may list the keys' ids.
 */
export function writeKeysFile(path: string, keys: ApiKeyEntry[]): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}

/** A new key and its entry: the key is shown once, the entry keeps only its hash. */
export function newApiKey(role: Role, tenant: string | null, now = new Date()): { key: string; entry: ApiKeyEntry } {
  const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const id = `k_${randomBytes(4).toString('hex')}`;
  return { key, entry: { id, sha256: digest(key).toString('hex'), role, tenant, created_at: now.toISOString() } };
}

/**
 * The keys a running server accepts, read again when the file changes (looked at every few seconds, when a
 * key is presented). Checking a key compares its hash with every entry, whether one matched or not, so
 * that a right and a wrong key take the same time.
 */
export class ApiKeyStore {
  private entries: Array<{ entry: ApiKeyEntry; hash: Buffer }> = [];
  private stamp = '';
  private checkedAt = -Infinity;

  constructor(
    private readonly path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.reload();
  }

  /** The entry of a valid key, or undefined. */
  verify(key: string): ApiKeyEntry | undefined {
    this.refresh();
    const presented = digest(key);
    let found: ApiKeyEntry | undefined;
    for (const { entry, hash } of this.entries) if (timingSafeEqual(hash, presented)) found = entry;
    return found;
  }

  private refresh(): void {
    if (this.now() - this.checkedAt < RECHECK_MS) return;
    this.checkedAt = this.now();
    // A file that cannot be read right now (being replaced, say) keeps the keys last read.
    if (stampOf(this.path) !== this.stamp) this.reload(false);
  }

  private reload(strict = true): void {
    try {
      // The stamp is taken first but kept only once the file was read: a failed read is tried again.
      const stamp = stampOf(this.path);
      this.entries = readKeysFile(this.path).map((entry) => ({ entry, hash: Buffer.from(entry.sha256, 'hex') }));
      this.stamp = stamp;
    } catch (error) {
      if (strict) throw error;
    }
  }
}

function stampOf(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return 'absent';
  }
}
