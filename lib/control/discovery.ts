// How `agent mcp ...` finds a running service started with other flags (for example by
// `npm start --config examples/...`): each service announces itself as `<pid>.json` in a
// per-user runtime directory, `$XDG_RUNTIME_DIR/agent` when that is set and writable, else
// `<tmpdir>/agent-<uid>` (0700, refused when another user owns it).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentError, Code } from '../shared/errors.ts';

export type ServiceRecord = {
  pid: number;
  configFile: string;
  configDir: string;
  /** The control socket (or Windows named pipe). */
  socket: string;
  /** Its writable state (`--state-dir`, else the configuration directory): backups go there. Absent in older announcements. */
  stateDir?: string;
  /** The HTTP base address, e.g. `http://127.0.0.1:3050`; null with --no-http. */
  address: string | null;
  /** ISO 8601. */
  startedAt: string;
};

export type Announcement = { readonly file: string; remove(): Promise<void> };
export type DiscoveryOptions = { /** The runtime directory; default `runtimeDir()`. */ dir?: string };

export type RuntimeDirInput = { xdgRuntimeDir: string | undefined; tmpdir: string; user: string; isWritableDir: (dir: string) => boolean };

/** The pure rule: `$XDG_RUNTIME_DIR/agent` when that is an absolute, writable directory, else `<tmpdir>/agent-<user>`. */
export function resolveRuntimeDir(input: RuntimeDirInput): string {
  const xdg = input.xdgRuntimeDir;
  if (xdg && path.isAbsolute(xdg) && input.isWritableDir(xdg)) return path.join(xdg, 'agent');
  return path.join(input.tmpdir, `agent-${input.user}`);
}

function isWritableDir(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** This user's runtime directory for service records. */
export function runtimeDir(env: Record<string, string | undefined> = process.env): string {
  const user = String(process.getuid?.() ?? os.userInfo().username);
  return resolveRuntimeDir({ xdgRuntimeDir: env.XDG_RUNTIME_DIR, tmpdir: os.tmpdir(), user, isWritableDir });
}

// The directory must be a real directory of this user (another user could plant records in a
// shared tmpdir); group and other permissions are taken away. False when it does not exist.
async function checkOwnDir(dir: string, create: boolean): Promise<boolean> {
  if (create) await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  let stat: fs.Stats;
  try {
    stat = await fs.promises.lstat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (!stat.isDirectory()) throw new AgentError(Code.unsafe_path, `Refusing to use the runtime directory ${dir}: it is not a directory`);
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  if (stat.uid !== uid) throw new AgentError(Code.unsafe_path, `Refusing to use the runtime directory ${dir}: it belongs to another user (uid ${stat.uid})`);
  if (stat.mode & 0o077) await fs.promises.chmod(dir, 0o700);
  return true;
}

/** Writes `<pid>.json` (0600) atomically; `remove()` deletes it at shutdown. */
export async function announceService(record: ServiceRecord, options: DiscoveryOptions = {}): Promise<Announcement> {
  const dir = options.dir ?? runtimeDir();
  await checkOwnDir(dir, true);
  const file = path.join(dir, `${record.pid}.json`);
  const tmp = path.join(dir, `.${record.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await fs.promises.writeFile(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
    await fs.promises.rename(tmp, file);
  } finally {
    await fs.promises.rm(tmp, { force: true });
  }
  return { file, remove: () => fs.promises.rm(file, { force: true }) };
}

function isServiceRecord(value: unknown): value is ServiceRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    Number.isSafeInteger(r.pid) &&
    (r.pid as number) > 0 &&
    typeof r.configFile === 'string' &&
    typeof r.configDir === 'string' &&
    typeof r.socket === 'string' &&
    (r.address === null || typeof r.address === 'string') &&
    typeof r.startedAt === 'string'
  );
}

// EPERM: the pid belongs to another user's process, so it is not one of this user's services.
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The announced services whose process is alive, oldest first; stale or unreadable records are removed. */
export async function findServices(options: DiscoveryOptions = {}): Promise<ServiceRecord[]> {
  const dir = options.dir ?? runtimeDir();
  if (!(await checkOwnDir(dir, false))) return [];
  const live: ServiceRecord[] = [];
  for (const name of await fs.promises.readdir(dir)) {
    const pid = /^(\d+)\.json$/.exec(name)?.[1];
    if (pid === undefined) continue;
    const file = path.join(dir, name);
    let record: unknown;
    try {
      record = JSON.parse(await fs.promises.readFile(file, 'utf8'));
    } catch (error) {
      // Removed meanwhile by its service; anything else is not a record we can use.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      record = null;
    }
    if (isServiceRecord(record) && record.pid === Number(pid) && isAlive(record.pid)) live.push(record);
    else await fs.promises.rm(file, { force: true });
  }
  return live.sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.pid - b.pid));
}
