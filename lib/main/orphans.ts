// A service killed with SIGKILL leaves its backends running: their workers recorded each child
// (pid and start time) in the state directory. The next service on that directory (HTTP or
// stdio) ends the process groups the dead one left, and the descendants of a backend still
// running that left its group (a `setsid` grandchild), with a log line per backend, before it
// starts its own.
import { childrenDir, forgetChild, procStartTime, readChildRecords } from '../shared/child-records.ts';
import type { Logger } from '../shared/logger.ts';
import { Code } from '../shared/errors.ts';
import { signalGroup } from '../shared/process-group.ts';
import { descendantsByRoot, isRunning, killSeen, readProcStat } from '../shared/proc-stat.ts';

// A zombie has died: a client that SIGKILLs its stdio service may not have reaped it yet.
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = readProcStat(pid);
  return stat === null || isRunning(stat);
};

/** Ends what dead services left; returns the number of process groups ended. */
export function endOrphans(stateDir: string, log: Pick<Logger, 'warn' | 'info'>): number {
  const { records, unreadable } = readChildRecords(stateDir);
  for (const { file, error } of unreadable) log.warn({ code: Code.internal, file, error }, 'unreadable child record ignored');
  let ended = 0;
  // A live service (this one, or a stdio service beside it) owns its children.
  const orphaned = records.filter((record) => record.servicePid !== process.pid && !alive(record.servicePid));
  const starts = new Map(orphaned.map((record) => [record.pid, procStartTime(record.pid)]));
  // Each backend still running, with its descendants: one walk of /proc for them all.
  const trees = descendantsByRoot(orphaned.filter((record) => starts.get(record.pid) === record.startTime).map((record) => record.pid));
  for (const record of orphaned) {
    const now = starts.get(record.pid) ?? null;
    // A different start time: the pid was reused by an unrelated process, whose group is not ours.
    // No process at all: while our old group has members, its id cannot have been reused.
    if (now === record.startTime || now === null) {
      // Seen before the group goes: once the backend is gone, nothing links them to it.
      const outside = (trees.get(record.pid) ?? []).filter((stat) => stat.pgrp !== record.pid && isRunning(stat));
      killSeen(outside);
      if (signalGroup(record.pid, 'SIGKILL') || outside.length > 0) {
        ended++;
        log.warn(
          { backend: record.backend, pid: record.pid, deadService: record.servicePid, command: record.command, recordedAt: record.recordedAt, ...(outside.length ? { outsideGroup: outside.map((stat) => stat.pid) } : {}) },
          `ended the process group of backend '${record.backend}' (pid ${record.pid}) left by a service that did not shut down (pid ${record.servicePid})`,
        );
      }
    }
    forgetChild(stateDir, record.pid);
  }
  if (ended) log.info({ dir: childrenDir(stateDir), groups: ended }, 'orphaned backends ended');
  return ended;
}
