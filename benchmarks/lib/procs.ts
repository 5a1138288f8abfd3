// Process facts read from /proc (Linux): RSS and CPU time of one process (its threads included,
// its children excluded), descendants, and a sweep for processes tagged with a run marker.
import fs from 'node:fs';
import { descendantsOf } from '../../lib/shared/proc-stat.ts';

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux this runs on

/** VmRSS of `pid` alone (all its threads, none of its children), in MB (10^6 bytes); NaN if gone. */
export function rssMB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
    return (kb * 1024) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** utime + stime of `pid` (all its threads; children not included), or of its thread `tid`, in seconds; NaN if gone. */
export function cpuSeconds(pid: number, tid?: number): number {
  try {
    const stat = fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces: split after the last ')'. Fields 14, 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/**
 * Time one thread `tid` of `pid` (the main thread's tid is the pid) spent on a CPU, in seconds; NaN
 * if gone. From schedstat (ns) where the kernel has it, else utime + stime (10 ms ticks).
 */
export function threadCpuSeconds(pid: number, tid: number): number {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
  } catch {
    /* no schedstat: ticks */
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** CPU use of thread `tid` of `pid` from now until the returned function is called, in percent of one core. */
export function threadCpuMeter(pid: number, tid: number): () => number {
  const cpu0 = threadCpuSeconds(pid, tid);
  const t0 = performance.now();
  return () => ((threadCpuSeconds(pid, tid) - cpu0) / ((performance.now() - t0) / 1000)) * 100;
}

/** The threads of `pid` whose nice value is `nice`. */
export function threadsAtNice(pid: number, nice: number): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) === nice) found.push(Number(entry)); // field 19
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

/** CPU use of `pid` (or of its thread `tid`) from now until the returned function is called, in percent of one core. */
export function cpuMeter(pid: number, tid?: number): () => number {
  const cpu0 = cpuSeconds(pid, tid);
  const t0 = performance.now();
  return () => ((cpuSeconds(pid, tid) - cpu0) / ((performance.now() - t0) / 1000)) * 100;
}

/**
 * CPU time of everything below `pid`: its reaped children (cutime + cstime) plus its live
 * descendants' own time, in seconds. Descendants that exited unreaped in between are missed.
 */
function childrenCpuSeconds(pid: number): number {
  let total = 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
  for (const child of descendants(pid)) {
    const seconds = cpuSeconds(child);
    if (Number.isFinite(seconds)) total += seconds;
  }
  return total;
}

/** CPU use of `pid`'s descendants (the backends) from now until called, in percent of one core. */
export function childrenCpuMeter(pid: number): () => number {
  const cpu0 = childrenCpuSeconds(pid);
  const t0 = performance.now();
  return () => ((childrenCpuSeconds(pid) - cpu0) / ((performance.now() - t0) / 1000)) * 100;
}

function machineTicks(): { busy: number; total: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!; // "cpu  user nice system idle iowait irq softirq steal ..."
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1, 9).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy, total: busy + idle! + iowait! };
}

/** How busy the whole machine was (all cores, every process) from now until called, in percent. */
export function machineMeter(): () => number {
  const t0 = machineTicks();
  return () => {
    const t1 = machineTicks();
    return ((t1.busy - t0.busy) / Math.max(1, t1.total - t0.total)) * 100;
  };
}

/** Every live descendant of `root`. */
export function descendants(root: number): number[] {
  return descendantsOf(root).map((stat) => stat.pid);
}

/** Alive and not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Live processes whose command line contains `marker`. */
export function processesWith(marker: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (cmdline.includes(marker) && isAlive(Number(entry))) found.push({ pid: Number(entry), cmdline });
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

export async function waitUntilDead(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = pids.filter(isAlive);
  while (alive.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    alive = alive.filter(isAlive);
  }
  return alive;
}

export function killPids(pids: number[], signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}
