// What a watched file (mcp.json, .env) looks like to `stat`, to tell that it changed when a
// polling watcher would not: chokidar's polling reports a change only when the size differs or
// the mtime went up, so `mv mcp.json.orig mcp.json` (older mtime, same size), `touch -r`, a
// symlink switched between two targets alike in both, or a `chmod` that makes the file readable
// went unseen. Any change of the inode, its times (ctime moves on every write, rename or chmod),
// its mode or the symlink's target is a change here.
import fs from 'node:fs/promises';

export type FileSignature =
  | { error: string; link: string | null }
  | { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number; mode: number; link: string | null };

/** The signature from a `stat` that follows symlinks (or its error code) and the symlink's own target (null when not a symlink). Pure. */
export function signatureFrom(stat: Pick<import('node:fs').Stats, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs' | 'mode'> | { error: string }, link: string | null): FileSignature {
  if ('error' in stat) return { error: stat.error, link };
  const { dev, ino, size, mtimeMs, ctimeMs, mode } = stat;
  return { dev, ino, size, mtimeMs, ctimeMs, mode, link };
}

/** Whether two signatures describe the same state of the file. Pure. */
export function sameSignature(a: FileSignature, b: FileSignature): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => (a as Record<string, unknown>)[key] === (b as Record<string, unknown>)[key]);
}

/** Reads a file's signature; never throws (a missing or unreadable path has its error code as its signature). */
export async function readSignature(file: string): Promise<FileSignature> {
  let link: string | null = null;
  try {
    if ((await fs.lstat(file)).isSymbolicLink()) link = await fs.readlink(file);
  } catch (error) {
    return signatureFrom({ error: (error as NodeJS.ErrnoException).code ?? 'EIO' }, null);
  }
  try {
    return signatureFrom(await fs.stat(file), link);
  } catch (error) {
    return signatureFrom({ error: (error as NodeJS.ErrnoException).code ?? 'EIO' }, link);
  }
}
