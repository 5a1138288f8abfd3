// Backups of mcp.json before the CLI edits it: `<stateDir>/backups/<file>.<time>.bak`, the
// newest BACKUPS_KEPT kept.
import fs from 'node:fs/promises';
import path from 'node:path';

export const BACKUP_DIR_NAME = 'backups';
export const BACKUPS_KEPT = 10;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const stampOf = (now: Date) => now.toISOString().replace(/:/g, '-');

/** Backup names: `<file name>.<ISO time with - for :>[-<n>].bak`, e.g. `mcp.json.2026-05-01T10-20-30.123Z.bak`. */
function backupPattern(base: string): RegExp {
  return new RegExp(`^${escapeRegExp(base)}\\.(\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}Z)(?:-(\\d+))?\\.bak$`);
}

/** The backups of `base` in `dir`, oldest first. */
export async function listBackups(dir: string, base: string): Promise<string[]> {
  const pattern = backupPattern(base);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .flatMap((name) => {
      const m = pattern.exec(name);
      return m ? [{ name, stamp: m[1]!, seq: Number(m[2] ?? 0) }] : [];
    })
    .sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.seq - b.seq))
    .map((b) => path.join(dir, b.name));
}

/**
 * Copies `content` (the file as it is before the edit) to `<stateDir>/backups/` under a
 * timestamped name with the file's mode, then deletes all but the newest `keep` backups of it.
 */
export async function backupConfig(file: string, stateDir: string, content: Buffer, mode: number, now = new Date(), keep = BACKUPS_KEPT): Promise<string> {
  const dir = path.join(stateDir, BACKUP_DIR_NAME);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const base = path.basename(file);
  let target = '';
  for (let seq = 0; ; seq++) {
    target = path.join(dir, `${base}.${stampOf(now)}${seq ? `-${seq}` : ''}.bak`);
    try {
      await fs.writeFile(target, content, { flag: 'wx', mode: mode & 0o777 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || seq > 1000) throw error;
    }
  }
  await fs.chmod(target, mode & 0o777);
  const all = await listBackups(dir, base);
  for (const old of all.slice(0, Math.max(0, all.length - keep))) await fs.rm(old, { force: true });
  return target;
}
