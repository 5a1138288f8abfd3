// The probe path runs first on a busy machine (decisions §1): hubs, backend workers and backend
// children run at a lower scheduling priority than the main thread. On Linux a thread's nice
// value is its own: a worker lowers its own thread (found through /proc/thread-self), and the
// children it spawns inherit it. Raising a priority needs privileges the service must not have,
// so a value is only ever raised (never below what the thread already has).
import fs from 'node:fs';
import os from 'node:os';

export type PriorityOutcome = { applied: true; tid: number; nice: number } | { applied: false; reason: string };

/** The calling thread's kernel thread id (Linux), or null elsewhere. */
export function currentThreadId(): number | null {
  try {
    const link = fs.readlinkSync('/proc/thread-self');
    const tid = Number(link.slice(link.lastIndexOf('/') + 1));
    return Number.isInteger(tid) ? tid : null;
  } catch {
    return null;
  }
}

/** Lowers the calling thread's priority to `nice` (0-19). */
export function lowerThreadPriority(nice: number): PriorityOutcome {
  if (nice <= 0) return { applied: false, reason: 'nice 0: normal priority' };
  if (process.platform !== 'linux') return { applied: false, reason: `thread priorities are only set on Linux (this is ${process.platform})` };
  const tid = currentThreadId();
  if (tid === null) return { applied: false, reason: '/proc/thread-self is not readable' };
  try {
    if (os.getPriority(tid) >= nice) return { applied: true, tid, nice: os.getPriority(tid) };
    os.setPriority(tid, nice);
    return { applied: true, tid, nice };
  } catch (error) {
    return { applied: false, reason: `could not lower the thread priority: ${(error as Error).message}` };
  }
}

/** Lowers a child process's priority to `nice` (it usually inherited it already). */
export function lowerProcessPriority(pid: number, nice: number): boolean {
  if (nice <= 0 || process.platform !== 'linux') return false;
  try {
    if (os.getPriority(pid) < nice) os.setPriority(pid, nice);
    return true;
  } catch {
    return false;
  }
}
