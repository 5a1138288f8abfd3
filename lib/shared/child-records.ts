// Records of running stdio children, one file each in `<stateDir>/children/<pid>.json`, so a
// service started after a crash can find the backends its predecessor left behind and end them.
// The start time (from /proc) tells a live orphan from an unrelated process that reused its pid.
// Pure Node: the main thread imports the reader.
import fs from 'node:fs';
import path from 'node:path';
import { isRunning, readProcStat } from './proc-stat.ts';

export type ChildRecord = {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot), as a string. */
  startTime: string;
  backend: string;
  /** The service process that spawned it. */
  servicePid: number;
  command: string;
  /** ISO 8601. */
  recordedAt: string;
};

export type UnreadableRecord = { file: string; error: string };

const RECORD_FILE = /^(\d+)\.json$/;

export function childrenDir(stateDir: string): string {
  return path.join(stateDir, 'children');
}

/** The start time of a running process, or null when it is not running (or a zombie) or there is no /proc. */
export function procStartTime(pid: number): string | null {
  const stat = readProcStat(pid);
  if (!stat || !isRunning(stat) || !/^\d+$/.test(stat.startTime)) return null;
  return stat.startTime;
}

/** Writes the record synchronously (directory 0700, file 0600), replacing the file atomically. */
export function recordChild(stateDir: string, record: ChildRecord): void {
  const dir = childrenDir(stateDir);
  // Not the state directory itself: one that was removed is made again by the service (serve.ts),
  // and a configuration directory that is also the state directory is never made by it.
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // An existing directory keeps its mode through mkdir: records name commands, so keep them private.
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, `${record.pid}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** Removes the record of `pid`; a missing record is fine. */
export function forgetChild(stateDir: string, pid: number): void {
  fs.rmSync(path.join(childrenDir(stateDir), `${pid}.json`), { force: true });
}

function isRecord(value: unknown): value is ChildRecord {
  const r = value as Partial<ChildRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    Number.isInteger(r.pid) &&
    typeof r.startTime === 'string' &&
    typeof r.backend === 'string' &&
    Number.isInteger(r.servicePid) &&
    typeof r.command === 'string' &&
    typeof r.recordedAt === 'string'
  );
}

/** Every record in the state directory; files that cannot be read or are not records are reported, not thrown. */
export function readChildRecords(stateDir: string): { records: ChildRecord[]; unreadable: UnreadableRecord[] } {
  const dir = childrenDir(stateDir);
  const records: ChildRecord[] = [];
  const unreadable: UnreadableRecord[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records, unreadable };
    return { records, unreadable: [{ file: dir, error: (error as Error).message }] };
  }
  for (const name of names.sort()) {
    const match = RECORD_FILE.exec(name);
    if (!match) continue; // e.g. a temporary file of an interrupted write
    const file = path.join(dir, name);
    try {
      const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (!isRecord(value)) throw new Error('not a child record');
      if (String(value.pid) !== match[1]) throw new Error(`records pid ${value.pid}, not ${match[1]}`);
      records.push(value);
    } catch (error) {
      unreadable.push({ file, error: (error as Error).message });
    }
  }
  return { records, unreadable };
}
