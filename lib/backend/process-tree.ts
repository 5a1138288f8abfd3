import fs from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import treeKill from 'tree-kill';
import { signalGroup } from '../shared/process-group.ts';

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
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command name: state (3), ppid (4), pgrp (5).
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
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
