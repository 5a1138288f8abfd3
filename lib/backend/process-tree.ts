import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import treeKill from 'tree-kill';
import { signalGroup } from '../shared/process-group.ts';
import { eachProcStat, isRunning } from '../shared/proc-stat.ts';

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

/** Resolves true once no process of the group runs, false if some still does after `timeoutMs`. */
export async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await delay(10);
  }
  return true;
}
