// A process's line in /proc/<pid>/stat (Linux), read by the fields the service uses: whether it
// still runs, its parent, its process group and its start time (which tells a reused pid apart).
import fs from 'node:fs';

export type ProcStat = { pid: number; state: string; ppid: number; pgrp: number; startTime: string };

/** The process's stat, or null when there is none (gone, or not Linux). */
export function readProcStat(pid: number | string): ProcStat | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may contain spaces and parentheses: fields 3.. follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid: Number(pid), state: fields[0] ?? '', ppid: Number(fields[1]), pgrp: Number(fields[2]), startTime: fields[19] ?? '' };
}

/** A zombie or a dead process has exited: only its entry is left. */
export function isRunning(stat: ProcStat): boolean {
  return stat.state !== 'Z' && stat.state !== 'X';
}

/** Every process's stat, one at a time (a walk may stop early). None where there is no /proc. */
export function* eachProcStat(): Generator<ProcStat> {
  if (process.platform !== 'linux') return;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(entry);
    if (stat) yield stat;
  }
}

/**
 * The processes descended from `pid` now (exited ones not yet reaped included; none where there is
 * no /proc), those that left its process group or session included: a signal to the group does not
 * reach them, and once their parent has exited nothing links them to it any more.
 */
export function descendantsOf(pid: number): ProcStat[] {
  return descendantsOfAll([pid]);
}

/** The processes descended from any of `pids`, as descendantsOf finds them, from one walk of /proc. */
export function descendantsOfAll(pids: readonly number[]): ProcStat[] {
  return [...descendantsByRoot(pids).values()].flat();
}

/** For each of `pids`, the processes descended from it, as descendantsOf finds them, from one walk of /proc. */
export function descendantsByRoot(pids: readonly number[]): Map<number, ProcStat[]> {
  const byRoot = new Map<number, ProcStat[]>(pids.map((pid) => [pid, []]));
  if (pids.length === 0) return byRoot;
  const children = new Map<number, ProcStat[]>();
  for (const stat of eachProcStat()) {
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(stat);
    children.set(stat.ppid, siblings);
  }
  for (const [root, found] of byRoot) {
    const queue = [root];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      for (const child of children.get(next) ?? []) {
        found.push(child);
        queue.push(child.pid);
      }
    }
  }
  return byRoot;
}

/** SIGKILLs each process that still runs as it was seen (same pid, same start time: a pid reused meanwhile is not taken for it). */
export function killSeen(processes: readonly Pick<ProcStat, 'pid' | 'startTime'>[]): void {
  for (const { pid, startTime } of processes) {
    const now = readProcStat(pid);
    if (!now || !isRunning(now) || now.startTime !== startTime) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
}
