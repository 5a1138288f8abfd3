import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import treeKill from 'tree-kill';
import { signalGroup } from '../shared/process-group.ts';
import { eachProcStat, isRunning } from '../shared/proc-stat.ts';
import { procStartTime } from '../shared/child-records.ts';

const treeKillAsync = promisify(treeKill) as (pid: number, signal: string) => Promise<void>;

// Forceful end: the tree as `ps` sees it (processes that left the group) and the group itself.
export async function killTree(pid: number): Promise<void> {
  await treeKillAsync(pid, 'SIGKILL').catch(() => undefined);
  signalGroup(pid, 'SIGKILL');
}

/**
 * Whether a process of the group still runs. On Linux zombies do not count: a killed grandchild
 * stays a zombie until init reaps it, which can take a second. Elsewhere any member counts.
 */
export function groupAlive(pgid: number): boolean {
  if (process.platform !== 'linux') return signalGroup(pgid, 0);
  for (const stat of eachProcStat()) if (stat.pgrp === pgid && isRunning(stat)) return true;
  return false;
}

/** A process as it was seen: its pid and start time, so a pid reused meanwhile is not taken for it. */
export type SeenProcess = { pid: number; startTime: string };

/**
 * The processes descended from `pid` now (Linux, from /proc; elsewhere none), those that left its
 * process group or session included: a signal to the group does not reach them, and once their
 * parent has exited nothing links them to the backend any more.
 */
export function descendantsOf(pid: number): SeenProcess[] {
  const children = new Map<number, SeenProcess[]>();
  for (const stat of eachProcStat()) {
    if (!isRunning(stat)) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push({ pid: stat.pid, startTime: stat.startTime });
    children.set(stat.ppid, siblings);
  }
  const found: SeenProcess[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** SIGKILLs each process that still runs as it was seen (same pid, same start time); returns how many. */
export function killSeen(processes: SeenProcess[]): number {
  let killed = 0;
  for (const { pid, startTime } of processes) {
    if (procStartTime(pid) !== startTime) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      /* gone meanwhile */
    }
  }
  return killed;
}

/** Resolves true once no process of the group runs, false if some still does after `timeoutMs`. */
export async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await delay(10);
  }
  return true;
}
