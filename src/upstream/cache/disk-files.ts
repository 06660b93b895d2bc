import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';

/*
 * Where cacache 20 puts things (its `cache-version`: index 5, content 2). cacache has no option for file
 * modes, so the disk store sets them after each write and needs these paths; a cacache upgrade that moved
 * them would leave files at the umask's mode, which test/upstream/cache/disk-store.test.ts checks file by file.
 */
export const INDEX_DIR = 'index-v5';
export const CONTENT_DIR = 'content-v2';
export const TMP_DIR = 'tmp';

const segments = (hex: string) => [hex.slice(0, 2), hex.slice(2, 4), hex.slice(4)];

export function bucketPath(root: string, key: string): string {
  return join(root, INDEX_DIR, ...segments(createHash('sha256').update(key).digest('hex')));
}

/** The file holding the content of a `sha512-…` integrity string. */
export function contentPath(root: string, integrity: string): string {
  const [algorithm, digest = ''] = integrity.split(/-(.*)/s);
  return join(root, CONTENT_DIR, algorithm!, ...segments(Buffer.from(digest, 'base64').toString('hex')));
}

/** The integrity string of a content file, from its path (the inverse of contentPath). */
export function integrityOf(root: string, file: string): string | undefined {
  const parts = relative(join(root, CONTENT_DIR), file).split(sep);
  if (parts.length !== 4) return undefined;
  return `${parts[0]}-${Buffer.from(parts.slice(1).join(''), 'hex').toString('base64')}`;
}

/** Creates the store's directory, and makes it (and the folders cacache writes to) 0700. */
export async function prepareRoot(root: string): Promise<void> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  const { mode } = await stat(root);
  // An existing directory others can read is narrowed; if that is refused, the store is not used.
  if ((mode & 0o077) !== 0) await chmod(root, 0o700);
  for (const sub of [INDEX_DIR, CONTENT_DIR, TMP_DIR]) {
    await mkdir(join(root, sub), { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
}

/** Files 0600 and every folder between them and the root 0700, whatever the umask gave them. */
export async function secure(root: string, files: string[]): Promise<void> {
  const dirs = new Set<string>();
  for (const file of files) {
    for (let dir = dirname(file); dir.startsWith(root + sep); dir = dirname(dir)) dirs.add(dir);
  }
  await Promise.all([
    ...files.map((file) => chmod(file, 0o600).catch(ignoreMissing)),
    ...[...dirs].map((dir) => chmod(dir, 0o700).catch(ignoreMissing)),
  ]);
}

export interface FileInfo {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Every file under `dir` (none if it is missing); files that vanish meanwhile are skipped. */
export async function filesUnder(dir: string): Promise<FileInfo[]> {
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const found = await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      return info?.isFile() ? { path, size: info.size, mtimeMs: info.mtimeMs } : undefined;
    }),
  );
  return found.filter((f): f is FileInfo => f !== undefined);
}

export async function remove(path: string): Promise<void> {
  await rm(path, { force: true });
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
