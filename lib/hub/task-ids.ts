// The task ids a client sees (issue 15): a backend's own task id travels inside one of ours,
// which names the backend, the worker and the connection that created it, and is signed with
// the service's key, so a client cannot forge one, and a task id can only ever reach the
// backend that made it. A task outlives neither its backend's connection nor this service run.
import { createSealer } from './signed-token.ts';

/**
 * Where a task lives: backend `b`, its worker `w`, connection `c`, the backend's task id `t`;
 * `s` marks a task a 2025 session owns (no 2026-07-28 request may reach it).
 */
export type TaskRef = { b: string; w: number; c: number; t: string; s?: 1 };

export type TaskIdCodec = {
  mint(ref: TaskRef): string;
  /** The task's place, or a thrown error saying why the id is refused. */
  open(id: unknown): TaskRef;
};

export function createTaskIdCodec(key: Buffer, instance: string): TaskIdCodec {
  // Sealed apart from requestState (another domain), so one can never pass for the other.
  const sealer = createSealer(key, 'agent task id');
  return {
    mint(ref) {
      return sealer.seal({ ...ref, i: instance });
    },
    open(id) {
      if (typeof id !== 'string') throw new Error('taskId is not a string');
      const opened = sealer.open(id) as (TaskRef & { i: string }) | null;
      if (!opened) throw new Error('not a task id this service handed out');
      const { i, ...ref } = opened;
      if (i !== instance) throw new Error('the task was created before the service restarted; its result is lost');
      return ref;
    },
  };
}
