// The task ids a client sees (issue 15): a backend's own task id travels inside one of ours,
// which names the backend, the worker and the connection that created it, and is signed with
// the service's key, so a client cannot forge one, and a task id can only ever reach the
// backend that made it. A task outlives neither its backend's connection nor this service run.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where a task lives: backend `b`, its worker `w`, connection `c`, the backend's task id `t`. */
export type TaskRef = { b: string; w: number; c: number; t: string };

export type TaskIdCodec = {
  mint(ref: TaskRef): string;
  /** The task's place, or a thrown error saying why the id is refused. */
  open(id: unknown): TaskRef;
};

// Signed apart from requestState (another domain), so one can never pass for the other.
const DOMAIN = 'agent task id\0';

export function createTaskIdCodec(key: Buffer, instance: string): TaskIdCodec {
  const sign = (body: string) => createHmac('sha256', key).update(DOMAIN).update(body).digest();
  return {
    mint(ref) {
      const body = Buffer.from(JSON.stringify({ ...ref, i: instance })).toString('base64url');
      return `${body}.${sign(body).toString('base64url')}`;
    },
    open(id) {
      if (typeof id !== 'string') throw new Error('taskId is not a string');
      const dot = id.indexOf('.');
      const body = id.slice(0, dot);
      const mac = Buffer.from(id.slice(dot + 1), 'base64url');
      const expected = sign(body);
      if (dot <= 0 || mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw new Error('not a task id this service handed out');
      const { i, ...ref } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TaskRef & { i: string };
      if (i !== instance) throw new Error('the task was created before the service restarted; its result is lost');
      return ref;
    },
  };
}
