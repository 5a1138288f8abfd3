import { promisify } from 'node:util';
import treeKill from 'tree-kill';

const treeKillAsync = promisify(treeKill) as (pid: number, signal: string) => Promise<void>;

// Signals a child's whole process group (it was spawned detached, so its pgid is its pid).
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

// Forceful end: the tree as `ps` sees it (processes that left the group) and the group itself.
export async function killTree(pid: number): Promise<void> {
  await treeKillAsync(pid, 'SIGKILL').catch(() => undefined);
  signalGroup(pid, 'SIGKILL');
}
