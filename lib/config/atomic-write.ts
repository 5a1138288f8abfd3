// A file replaced atomically: temp file beside the real one, flushed, renamed over it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Replaces the file's content atomically: a temp file in the directory of the real file (a
 * symlink is followed and stays a symlink), with the file's mode (and owner when permitted),
 * flushed, then renamed over it. `unchangedSince`, when given, must still be the file's
 * content just before the rename; otherwise nothing is replaced and false is returned.
 */
export async function writeFileAtomic(file: string, text: string, unchangedSince?: Buffer): Promise<boolean> {
  const real = await fs.realpath(file);
  const stat = await fs.stat(real);
  const tmp = path.join(path.dirname(real), `.${path.basename(real)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let renamed = false;
  try {
    const handle = await fs.open(tmp, 'wx', stat.mode & 0o7777);
    try {
      await handle.chmod(stat.mode & 0o7777);
      if (process.getuid && (stat.uid !== process.getuid() || stat.gid !== process.getgid?.())) {
        await handle.chown(stat.uid, stat.gid).catch(() => undefined);
      }
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (unchangedSince && !(await fs.readFile(real)).equals(unchangedSince)) return false;
    await fs.rename(tmp, real);
    renamed = true;
    // Make the rename itself durable; not possible on every platform.
    const dir = await fs.open(path.dirname(real), 'r').catch(() => null);
    await dir?.sync().catch(() => undefined);
    await dir?.close();
    return true;
  } finally {
    if (!renamed) await fs.rm(tmp, { force: true });
  }
}
