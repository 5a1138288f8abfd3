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

/**
 * What lowering a child's autogroup came to: `busy` is the kernel's limit of one autogroup change
 * per 100 ms machine-wide for a process without CAP_SYS_ADMIN (try again later); `absent`: no
 * autogroup to lower (a kernel built without them or with them switched off, a child in the
 * kernel's root group, whose autogroup file reads empty) or the process is gone. In a cpu cgroup
 * (containers, systemd units with CPU accounting) the file still names a group but the scheduler
 * ignores it: the change is 'applied' and has no effect; the cgroup's weight decides there.
 */
export type AutogroupOutcome =
  | { outcome: 'applied'; nice: number }
  | { outcome: 'busy' }
  | { outcome: 'absent' }
  // The child is in the service's own group: its nice value ranks it there already, and
  // lowering the group would lower the probe path with it.
  | { outcome: 'shared' }
  | { outcome: 'failed'; reason: string };

/**
 * Lowers the CPU weight of the autogroup a child heads. Where the kernel groups tasks by session
 * (sched_autogroup_enabled, tasks outside a cpu cgroup), a child spawned in its own session gets
 * a group of its own, and groups share the CPU as equals: the child's nice value then ranks it
 * only inside its group, and a nice-10 backend weighs as much as the whole service. The group's
 * nice value puts it below the service again. Never raised (as for threads).
 */
export function lowerAutogroupPriority(pid: number, nice: number): AutogroupOutcome {
  const file = `/proc/${pid}/autogroup`;
  try {
    const read = (path: string) => fs.readFileSync(path, 'utf8');
    const decision = decideAutogroup({ enabled: read('/proc/sys/kernel/sched_autogroup_enabled'), child: read(file), self: read('/proc/self/autogroup') }, nice);
    if (decision.outcome !== 'write') return decision;
    fs.writeFileSync(file, String(nice));
    return { outcome: 'applied', nice };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN') return { outcome: 'busy' };
    if (code === 'ENOENT' || code === 'ESRCH') return { outcome: 'absent' };
    return { outcome: 'failed', reason: (error as Error).message };
  }
}

/**
 * Pure: from the text of the kernel's files (sched_autogroup_enabled, the child's and this
 * process's autogroup), what lowering the child's group to `nice` comes to, or `write` it.
 */
export function decideAutogroup(files: { enabled: string; child: string; self: string }, nice: number): Extract<AutogroupOutcome, { outcome: 'absent' | 'shared' | 'applied' }> | { outcome: 'write'; nice: number } {
  // Switched off, the groups are still made and shown, and ignored: no change worth a slot.
  if (files.enabled.trim() === '0') return { outcome: 'absent' };
  const child = parseAutogroup(files.child);
  if (!child) return { outcome: 'absent' };
  // The service itself may be in the root group (an empty file; CI runs it there): the child's group is apart.
  if (child.group === parseAutogroup(files.self)?.group) return { outcome: 'shared' };
  if (child.nice >= nice) return { outcome: 'applied', nice: child.nice };
  return { outcome: 'write', nice };
}

/**
 * "/autogroup-399 nice 0" -> { group: '/autogroup-399', nice: 0 }; null for the kernel's root
 * group (init's session and whatever never left it), for which the kernel prints nothing.
 */
export function parseAutogroup(text: string): { group: string; nice: number } | null {
  const match = /^(\S+)\s+nice\s+(-?\d+)/.exec(text);
  return match ? { group: match[1]!, nice: Number(match[2]) } : null;
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
