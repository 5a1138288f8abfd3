// A backend's child is spawned detached, so its process group id is its pid: a signal to the
// group reaches the child and what it started. Node's own call, no dependency: every thread may use it.

/** Signals the process group `pgid`; false when no process of it is left (or none may be signalled). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
